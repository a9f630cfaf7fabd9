/* oracle_threads.c: two threads working at once; the worker's run between
 * worker_begin() and worker_end() is the oracle's sequence while main
 * keeps busy (and traced) beside it. */
#include <pthread.h>
#include <stdio.h>

void worker_begin(void) { __asm__ volatile("" ::: "memory"); }
void worker_end(void) { __asm__ volatile("" ::: "memory"); }

static volatile long a, b;

static int tri(int n) { return n ? n + tri(n - 1) : 0; }

static void *worker(void *arg) {
  (void)arg;
  worker_begin();
  for (int i = 0; i < 300; i++)
    a += i & 1 ? tri(i & 15) : -i;
  worker_end();
  return NULL;
}

int main(void) {
  pthread_t t;

  pthread_create(&t, NULL, worker, NULL);
  for (int i = 0; i < 20000; i++)
    b += i % 7 ? i : 1;
  pthread_join(t, NULL);
  printf("%ld %ld\n", a, b);
  return 0;
}
