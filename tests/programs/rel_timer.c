/* rel_timer.c: fixture for tests/process_test.py: an interval timer
 * (SIGALRM every argv[1] microseconds, default 50: faster than a ptrace
 * stop) ticks while the program works until it is killed.  The handler
 * counts ticks; the program never blocks SIGALRM itself, so a SIGALRM bit
 * in its mask (/proc/PID/status SigBlk) is a tracer's.  argv[2] adds to
 * each round, counted in rounds:
 *   fork    a child that exits at once (fork passes the mask on: the
 *           child's is the program's own, else it exits 4, counted in
 *           masked);
 *   thread  a thread made and joined (clone: the same check);
 *   sleep   a 200 us sleep (a call that blocks, a tick interrupts). */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

volatile unsigned long ticks, rounds, masked, counter;

void on_alarm(int sig)
{
	(void)sig;
	ticks++;
}

void work(void)
{
	for (int i = 0; i < 1000; i++)
		counter += i & 7;
}

static int alarm_blocked(void)
{
	sigset_t now;

	return pthread_sigmask(SIG_BLOCK, NULL, &now) != 0 || sigismember(&now, SIGALRM);
}

static void *thread_main(void *arg)
{
	(void)arg;
	if (alarm_blocked())
		masked++;
	return NULL;
}

static void one_fork(void)
{
	pid_t c = fork();
	int st;

	if (c == 0)
		_exit(alarm_blocked() ? 4 : 0);
	if (c > 0 && waitpid(c, &st, 0) == c && WIFEXITED(st) && WEXITSTATUS(st) == 4)
		masked++;
}

int main(int argc, char **argv)
{
	long us = argc > 1 ? atol(argv[1]) : 50;
	const char *mode = argc > 2 ? argv[2] : "";
	struct itimerval it = { { 0, us }, { 0, us } };
	struct sigaction sa;
	pthread_t th;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	for (;;) {
		work();
		if (!strcmp(mode, "fork"))
			one_fork();
		else if (!strcmp(mode, "thread") && pthread_create(&th, NULL, thread_main, NULL) == 0)
			pthread_join(th, NULL);
		else if (!strcmp(mode, "sleep"))
			usleep(200);
		rounds++;
	}
}
