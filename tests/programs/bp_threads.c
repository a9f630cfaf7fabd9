/* Fixture: four threads (main and three workers) meet in a spin, then
 * each calls hit() at once, so that several hit its breakpoint before
 * the debugger stops the others (breakpoint_threads_test.py). */
#include <pthread.h>

#define N 4

static volatile int arrived;
static volatile int hits;

void hit(int who)
{
	__sync_fetch_and_add(&hits, who);
}

static void meet(void)
{
	__sync_fetch_and_add(&arrived, 1);
	while (arrived < N)
		;
}

static void *worker(void *a)
{
	meet();
	hit(2);
	return a;
}

int main(void)
{
	pthread_t t[N];

	for (int i = 1; i < N; i++)
		pthread_create(&t[i], 0, worker, 0);
	meet();
	hit(1);
	for (int i = 1; i < N; i++)
		pthread_join(t[i], 0);
	return hits;
}
