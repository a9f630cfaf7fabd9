/* fork_pipe.c: fixture for tests/unit/test-cache-inject.c: forks a child
 * that waits on a pipe until the parent has its fork's result (so no
 * SIGCHLD is pending while the parent sits at the fork's event stop);
 * exits 2 if fork failed, 3 if what it returned is not the child to wait for,
 * 1 if the child did not exit 7, else 0. */
#include <sys/wait.h>
#include <unistd.h>

int main(void)
{
	int fd[2], st;
	char b = 0;
	pid_t pid;

	if (pipe(fd) < 0)
		return 4;
	pid = fork();
	if (pid < 0)
		return 2;
	if (pid == 0) {
		close(fd[1]);	/* (the parent's end only: one gone with it ends the read) */
		if (read(fd[0], &b, 1) != 1)
			_exit(5);
		_exit(7);
	}
	if (write(fd[1], &b, 1) != 1 || waitpid(pid, &st, 0) != pid)
		return 3;
	return WIFEXITED(st) && WEXITSTATUS(st) == 7 ? 0 : 1;
}
