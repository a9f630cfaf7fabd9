/* trapcost.c: the cost of one bare ptrace stop (PTRACE_SINGLESTEP of a
 * child spinning in a loop), in nanoseconds: the software backend's floor. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 20000, st;
	struct timespec a, b;
	pid_t pid = fork();

	if (pid == 0) {
		ptrace(PTRACE_TRACEME, 0, 0, 0);
		raise(SIGSTOP);
		for (volatile unsigned long i = 0;; i++)
			;
	}
	waitpid(pid, &st, 0);
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (int i = 0; i < n; i++) {
		ptrace(PTRACE_SINGLESTEP, pid, 0, 0);
		waitpid(pid, &st, 0);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	printf("%.0f\n", ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n);
	return 0;
}
