/* hw_threads.c: four threads, each running work(k), a fixed computation
 * long enough (argv[1] iterations, default 200000) to be switched out on a
 * busy CPU: make hwcheck's per-CPU step compares each thread's part of the
 * per-CPU trace with its per-thread trace. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static volatile long out[4];
static int iters = 200000;
static pthread_barrier_t done, leave;

void work_done(void) { __asm__ volatile("" ::: "memory"); }

long work(int k) {
  long s = k;

  for (int i = 0; i < iters; i++)
    s = s * 31 + (i % (k + 2) ? i : -i);
  return s;
}

static void *run(void *arg) {
  int k = (int)(long)arg;

  out[k] = work(k);
  /* alive (and traced) until main has stopped at work_done */
  pthread_barrier_wait(&done);
  pthread_barrier_wait(&leave);
  return NULL;
}

int main(int argc, char **argv) {
  pthread_t t[4];

  if (argc > 1)
    iters = atoi(argv[1]);
  pthread_barrier_init(&done, NULL, 5);
  pthread_barrier_init(&leave, NULL, 5);
  for (long k = 0; k < 4; k++)
    pthread_create(&t[k], NULL, run, (void *)k);
  pthread_barrier_wait(&done);
  work_done();
  pthread_barrier_wait(&leave);
  for (int k = 0; k < 4; k++)
    pthread_join(t[k], NULL);
  printf("%ld %ld %ld %ld\n", out[0], out[1], out[2], out[3]);
  return 0;
}
