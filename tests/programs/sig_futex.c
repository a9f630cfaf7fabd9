/* sig_futex.c: what a Go program's threads do, in C.  Workers wait in
 * FUTEX_WAIT, all at the same system call instruction (libc's syscall()),
 * while main interrupts each with a signal it handles (SA_RESTART: the
 * wait restarts after the handler, as Go's SIGURG preemption does) before
 * it wakes it.  A traced thread stopped with that signal inside the wait
 * is back at the pc after the call, where another thread's wait may have
 * a breakpoint: the step over it must deliver the signal, or the kernel
 * restarts the wait and the step never ends (the waker is stopped).
 * With a second argument, winch, the signal is SIGWINCH with no handler
 * (ignored by default): it does nothing to the thread, and the wait
 * restarts at once; the step that delivered it ended only with the wait.
 * Prints one line that does not depend on the schedule. */
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define WORKERS 4

static volatile int word[WORKERS], waiting[WORKERS], handled[WORKERS];
static pthread_t tids[WORKERS];
static int rounds;

static void on_usr1(int sig)
{
	pthread_t me = pthread_self();

	(void)sig;
	for (int i = 0; i < WORKERS; i++)
		if (pthread_equal(me, tids[i]))
			__atomic_add_fetch(&handled[i], 1, __ATOMIC_SEQ_CST);
}

static void *worker(void *arg)
{
	int i = (int)(long)arg;

	for (int r = 0; r < rounds; r++) {
		waiting[i] = r + 1;
		while (word[i] == r)
			syscall(SYS_futex, &word[i], FUTEX_WAIT_PRIVATE, r, NULL, NULL, 0);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_usr1, .sa_flags = SA_RESTART };
	long total = 0;
	int winch = argc > 2 && !strcmp(argv[2], "winch");

	rounds = argc > 1 ? atoi(argv[1]) : 50;
	sigaction(SIGUSR1, &sa, NULL);
	for (long i = 0; i < WORKERS; i++) {
		/* (tids[] written before the worker can take a signal) */
		pthread_create(&tids[i], NULL, worker, (void *)i);
	}
	for (int r = 0; r < rounds; r++)
		for (int i = 0; i < WORKERS; i++) {
			while (waiting[i] != r + 1)
				sched_yield();
			if (winch) {
				/* (nothing to wait for: a few yields let the
				 * signal come while the worker waits) */
				pthread_kill(tids[i], SIGWINCH);
				handled[i]++;
				for (int k = 0; k < 20; k++)
					sched_yield();
			} else {
				pthread_kill(tids[i], SIGUSR1);
				while (handled[i] != r + 1)
					sched_yield();
			}
			__atomic_store_n(&word[i], r + 1, __ATOMIC_SEQ_CST);
			syscall(SYS_futex, &word[i], FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
		}
	for (int i = 0; i < WORKERS; i++) {
		pthread_join(tids[i], NULL);
		total += handled[i];
	}
	printf("rounds %d signals %ld\n", rounds, total);
	return 0;
}
