/* Fixture: pending finishes in two threads, the older one returning
 * first.  main's fa() lets the worker go and waits for hit3(); the
 * worker's hit2() calls hit3() and then waits until fa() has returned,
 * so fa() always returns before hit2() does. */
#include <pthread.h>

static volatile int go, stage;

void hit3(void)
{
	stage = 1;
}

void hit2(void)
{
	hit3();
	while (stage < 2)
		;
}

static void *worker(void *a)
{
	while (!go)
		;
	hit2();
	return a;
}

int fa(void)
{
	go = 1;
	while (stage < 1)
		;
	return 7;
}

int main(void)
{
	pthread_t t;
	int r;

	pthread_create(&t, 0, worker, 0);
	r = fa();
	stage = 2;
	pthread_join(t, 0);
	return r;
}
