/* globals.c: globals, file statics, a function's static and
 * thread-local variables in two threads, for target variable and
 * expressions. */
#include <pthread.h>
#include <stdio.h>

int g_count = 3;
static double g_ratio = 0.5;
const char g_name[] = "globals";
__thread int tls_id = 7;
static __thread long tls_hits;
int *g_ptr = &g_count;

__attribute__((noinline)) int bump(int by)
{
	static int calls;

	calls++;
	tls_hits += by;
	return calls;
}

static void *worker(void *arg)
{
	tls_id = (int)(long)arg;
	bump(10);
	return NULL;
}

int main(void)
{
	pthread_t t;

	bump(1);
	pthread_create(&t, NULL, worker, (void *)42L);
	pthread_join(t, NULL);
	printf("%d %d %g %s\n", g_count, tls_id, g_ratio, g_name);
	return 0;
}
