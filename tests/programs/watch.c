/* Watchpoint fixture (tests/transcripts/017*): threads touch globals. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

int shared = 5;
int counter;
long wide;
char bytes[16];

static void *worker(void *arg)
{
	int local = 0;

	(void)arg;
	local = shared;
	counter = local;
	counter += 2;
	shared = 7;
	shared = 7;
	return NULL;
}

int main(void)
{
	pthread_t t;
	int x = 0;

	x = 1;
	x = x + 1;
	pthread_create(&t, NULL, worker, NULL);
	pthread_join(t, NULL);
	wide = counter;
	printf("%d %d %ld\n", x, shared, wide);
	memset(bytes, 7, sizeof(bytes) + (size_t)x - 2);	/* libc's, not inlined */
	return bytes[4] - 7;
}
