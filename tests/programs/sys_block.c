/* sys_block.c: fixture for tests/engine_test.py.  A second thread
 * blocks in clock_nanosleep(2) for 2 s (a call the kernel restarts with
 * restart_syscall when a stop interrupts it), then prints how it went;
 * meanwhile the main thread calls tick() in a loop until the sleeper is
 * done, where a test plants a breakpoint it continues from many times.
 * With an argument the main thread only waits in pthread_join (futex). */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>

volatile int done;
volatile unsigned long ticks;

void tick(void)
{
	ticks++;
}

static long ms_since(const struct timespec *a)
{
	struct timespec b;

	clock_gettime(CLOCK_MONOTONIC, &b);
	return (b.tv_sec - a->tv_sec) * 1000 + (b.tv_nsec - a->tv_nsec) / 1000000;
}

static void *sleeper(void *arg)
{
	struct timespec t0, d = {4, 0};
	int rc;

	(void)arg;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = clock_nanosleep(CLOCK_MONOTONIC, 0, &d, NULL);
	printf("slept rc=%d ms=%ld\n", rc, ms_since(&t0));
	fflush(stdout);
	done = 1;
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th;

	(void)argv;
	pthread_create(&th, NULL, sleeper, NULL);
	while (!done && argc < 2)
		for (volatile int i = 0; i < 200000 && !done; i++)
			if (i == 0)
				tick();
	pthread_join(th, NULL);
	printf("joined ticks=%lu\n", ticks);
	return 0;
}
