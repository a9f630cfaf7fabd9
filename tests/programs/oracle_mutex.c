/* oracle_mutex.c: four workers under one mutex.  A token goes round a ring
 * of pipes: each worker blocks in read() for it (in the kernel, never
 * spinning), takes the mutex, works, lets go, passes the token on.  So
 * each worker's own instructions do not depend on how the threads are
 * interleaved: the oracle compares them thread by thread, from
 * worker_begin() to worker_end().  Worker i does i + 1 extra steps a
 * round, so no two workers run the same sequence.  (abort() is never
 * called.) */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NW 4
#define ROUNDS 6

void oracle_begin(void) { __asm__ volatile("" ::: "memory"); }
void oracle_end(void) { __asm__ volatile("" ::: "memory"); }
void worker_begin(void) { __asm__ volatile("" ::: "memory"); }
void worker_end(void) { __asm__ volatile("" ::: "memory"); }

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int ring[NW][2], done[2], quit[2];
static long shared[64];
static char text[NW][64];

static int cmp(const void *a, const void *b) {
  long x = *(const long *)a, y = *(const long *)b;
  return (x > y) - (x < y);
}

static long mix(long v, int k) { return k ? mix(v * 31 + k, k - 1) : v; }

static void *worker(void *arg) {
  int me = (int)(long)arg;
  char c;

  worker_begin();
  for (int r = 0; r < ROUNDS; r++) {
    if (read(ring[me][0], &c, 1) != 1)
      abort();
    pthread_mutex_lock(&m);
    for (int k = 0; k <= me; k++)
      shared[(r * NW + me + k) % 64] += mix(r + k, 8 + me);
    qsort(shared, 16, sizeof(long), cmp);
    snprintf(text[me], sizeof(text[me]), "w%d r%d %ld", me, r, shared[me] & 0xff);
    shared[me] += (long)strlen(text[me]);
    pthread_mutex_unlock(&m);
    if (write(ring[(me + 1) % NW][1], &c, 1) != 1)
      abort();
  }
  worker_end();
  if (write(done[1], "d", 1) != 1)
    abort();
  if (read(quit[0], &c, 1) != 1) /* alive at oracle_end */
    abort();
  return NULL;
}

int main(void) {
  pthread_t t[NW];
  char c;

  oracle_begin();
  for (int i = 0; i < NW; i++)
    if (pipe(ring[i]) < 0)
      return 1;
  if (pipe(done) < 0 || pipe(quit) < 0)
    return 1;
  /* every PLT entry the workers use bound now: the first caller of one
   * runs the dynamic linker, and which worker that is would depend on
   * the interleaving */
  pthread_mutex_lock(&m);
  pthread_mutex_unlock(&m);
  qsort(shared, 16, sizeof(long), cmp);
  snprintf(text[0], sizeof(text[0]), "%d", (int)strlen("warm"));
  if (write(done[1], "w", 1) != 1 || read(done[0], &c, 1) != 1)
    return 1;
  for (long i = 0; i < NW; i++)
    pthread_create(&t[i], NULL, worker, (void *)i);
  if (write(ring[0][1], "t", 1) != 1)
    return 1;
  for (int i = 0; i < NW; i++)
    if (read(done[0], &c, 1) != 1)
      return 1;
  oracle_end();
  for (int i = 0; i < NW; i++)
    if (write(quit[1], "q", 1) != 1)
      return 1;
  for (int i = 0; i < NW; i++)
    pthread_join(t[i], NULL);
  printf("%ld %s\n", shared[0], text[NW - 1]);
  return 0;
}
