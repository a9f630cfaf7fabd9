/* sig_thread.c: fixture for transcript 0060: a second thread gets
 * SIGUSR1 (handled) and exits before main reaches after_join(). */
#include <pthread.h>
#include <signal.h>

volatile int got;

static void on_usr1(int sig)
{
	got = sig;
}

static void *worker(void *arg)
{
	(void)arg;
	raise(SIGUSR1);
	return 0;
}

void after_join(void)
{
	got++;
}

int main(void)
{
	pthread_t t;

	signal(SIGUSR1, on_usr1);
	pthread_create(&t, 0, worker, 0);
	pthread_join(t, 0);
	after_join();
	return got == SIGUSR1 + 1 ? 0 : 1;
}
