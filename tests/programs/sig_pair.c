/* tests/programs/sig_pair.c: two signals for one running thread at once.
 * A second thread sends SIGUSR1 then SIGUSR2 to the main thread, which
 * spins (counting its turns), ROUNDS times; each time it waits until both
 * handlers ran, or until the main thread has spun LOST turns since (a
 * signal is lost then: the kernel delivers both at the thread's next
 * return to user space, long before that).  Prints the counts; exits 0 if every signal
 * arrived.  (process_test.py: SIGUSR1 and SIGUSR2 while the thread is
 * stopped by the first, traced and not.) */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#define ROUNDS 20
#define LOST 1000000

static volatile long usr1, usr2, spins;
static volatile int done;
static pthread_t spinner;

static void on_usr1(int sig)
{
	(void)sig;
	usr1++;
}

static void on_usr2(int sig)
{
	(void)sig;
	usr2++;
}

static void *sender(void *arg)
{
	(void)arg;
	for (long i = 1; i <= ROUNDS; i++) {
		long at = spins;

		pthread_kill(spinner, SIGUSR1);
		pthread_kill(spinner, SIGUSR2);
		while ((usr1 < i || usr2 < i) && spins - at < LOST)
			;
	}
	done = 1;
	return NULL;
}

int main(void)
{
	pthread_t t;

	signal(SIGUSR1, on_usr1);
	signal(SIGUSR2, on_usr2);
	spinner = pthread_self();
	pthread_create(&t, NULL, sender, NULL);
	while (!done)
		spins++;
	pthread_join(t, NULL);
	printf("usr1 %ld usr2 %ld of %d\n", usr1, usr2, ROUNDS);
	return usr1 == ROUNDS && usr2 == ROUNDS ? 0 : 1;
}
