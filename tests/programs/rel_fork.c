/* rel_fork.c: fixture for tests/process_test.py: forks; the child runs
 * child_work() (where the test plants a breakpoint: a copy of it in an
 * untraced child would kill it with SIGTRAP) and exits 7; the parent
 * waits and exits 0 only if the child exited 7 by itself. */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

volatile int sum;

void child_work(void)
{
	for (int i = 0; i < 1000; i++)
		sum += i;
}

int main(void)
{
	int st;
	pid_t pid = fork();

	if (pid < 0)
		return 2;
	if (pid == 0) {
		child_work();
		_exit(7);
	}
	if (waitpid(pid, &st, 0) != pid)
		return 3;
	printf("child %s %d\n", WIFEXITED(st) ? "exited" : "killed by signal",
	       WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
	return WIFEXITED(st) && WEXITSTATUS(st) == 7 ? 0 : 1;
}
