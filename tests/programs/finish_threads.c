/* Fixture: finish in one thread while another hits a breakpoint first.
 * main's slow() lets the worker go and waits for it; the worker calls
 * hit() (the breakpoint) and then says it is done, so slow() returns
 * only after the worker's stop. */
#include <pthread.h>

static volatile int go, done;
static volatile int hits;

void hit(void)
{
	hits++;
}

static void *worker(void *a)
{
	while (!go)
		;
	hit();
	done = 1;
	return a;
}

int slow(int n)
{
	go = 1;
	while (!done)
		;
	return n * 2;
}

int main(void)
{
	pthread_t t;
	int r;

	pthread_create(&t, 0, worker, 0);
	r = slow(21);
	pthread_join(t, 0);
	return r;
}
