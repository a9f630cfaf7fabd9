/* rel_waves.c: fixture for tests/stress_test.py: 64 threads created and
 * joined in 8 waves of 8; each computes a little so its trace has loops,
 * calls and returns, then calls thread_done(); all_joined() runs after the
 * last join. */
#include <pthread.h>
#include <stdio.h>

#define WAVES 8
#define PER_WAVE 8

static volatile long results[WAVES * PER_WAVE];

static long step(long x)
{
	return x % 7 ? x * 3 + 1 : x / 7;
}

/* each thread calls it last: the test stops every thread here */
void thread_done(long i)
{
	(void)i;
}

static void *worker(void *arg)
{
	long i = (long)arg, x = i + 1;

	for (int k = 0; k < 200; k++)
		x = step(x) & 0xffff;
	results[i] = x;
	thread_done(i);
	return NULL;
}

void all_joined(void)
{
	long sum = 0;

	for (int i = 0; i < WAVES * PER_WAVE; i++)
		sum += results[i];
	printf("threads %d sum %ld\n", WAVES * PER_WAVE, sum);
}

int main(void)
{
	pthread_t t[PER_WAVE];

	for (int w = 0; w < WAVES; w++) {
		for (int i = 0; i < PER_WAVE; i++)
			if (pthread_create(&t[i], NULL, worker, (void *)(long)(w * PER_WAVE + i)))
				return 1;
		for (int i = 0; i < PER_WAVE; i++)
			pthread_join(t[i], NULL);
	}
	all_joined();
	return 0;
}
