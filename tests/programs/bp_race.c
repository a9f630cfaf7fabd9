/* Fixture: four threads call hit() (a breakpoint) 100 times each while a
 * fifth raises SIGUSR1 (a stop of another reason) 100 times, so that a
 * thread runs hit()'s int3 just as the debugger stops the others for a
 * signal (breakpoint_threads_test.py: every hit is reported). */
#include <pthread.h>
#include <signal.h>

#define N 4
#define CALLS 100

static volatile int hits;

void hit(void)
{
	__sync_fetch_and_add(&hits, 1);
}

static void on_usr1(int sig)
{
	(void)sig;
}

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < CALLS; i++) {
		for (volatile int k = 0; k < 2000; k++)
			;
		hit();
	}
	return 0;
}

static void *signaller(void *arg)
{
	(void)arg;
	for (int i = 0; i < CALLS; i++) {
		for (volatile int k = 0; k < 3000; k++)
			;
		raise(SIGUSR1);
	}
	return 0;
}

int main(void)
{
	pthread_t t[N + 1];

	signal(SIGUSR1, on_usr1);
	for (int i = 0; i < N; i++)
		pthread_create(&t[i], 0, worker, 0);
	pthread_create(&t[N], 0, signaller, 0);
	for (int i = 0; i <= N; i++)
		pthread_join(t[i], 0);
	return hits == N * CALLS ? 0 : 1;
}
