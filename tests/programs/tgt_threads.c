/* tgt_threads.c: fixture for test-target: main + two named workers that
 * meet at barriers; threads_ready() runs while all three exist and each
 * worker then calls hit_me(). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>

static pthread_barrier_t b1, b2;
static volatile int hits;

void threads_ready(void) { hits += 100; }
void hit_me(int i) { hits += i; }

static void *worker(void *arg)
{
	int i = (int)(long)arg;
	char name[16];

	snprintf(name, sizeof(name), "worker%d", i);
	pthread_setname_np(pthread_self(), name);
	pthread_barrier_wait(&b1);
	pthread_barrier_wait(&b2);
	hit_me(i);
	return NULL;
}

int main(void)
{
	pthread_t t[2];

	pthread_barrier_init(&b1, NULL, 3);
	pthread_barrier_init(&b2, NULL, 3);
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, (void *)(i + 1));
	pthread_barrier_wait(&b1);
	threads_ready();
	pthread_barrier_wait(&b2);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	return hits == 103 ? 0 : 1;
}
