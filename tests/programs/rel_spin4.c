/* rel_spin4.c: fixture for tests/stress_test.py: four threads that call
 * work() as fast as they can until killed, so that a breakpoint there is
 * hit by several threads at once (their int3s race every stop). */
#include <pthread.h>
#include <unistd.h>

volatile unsigned long counter[4];

void work(int i)
{
	counter[i]++;
}

static void *spin(void *arg)
{
	int i = (int)(long)arg;

	for (;;)
		work(i);
	return NULL;
}

int main(void)
{
	pthread_t t[3];

	for (long i = 1; i < 4; i++)
		pthread_create(&t[i - 1], NULL, spin, (void *)i);
	spin((void *)0);
	return 0;
}
