/* oracle_contend.c: four workers contend for one mutex with trylock,
 * spinning (no system call) while another holds it; each counts its
 * failed tries (calls of contended()).  Main passes the counts to
 * oracle_end(), the workers still alive, so each thread's trace can be
 * checked against the program's own figure. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#define NW 4
#define ITERS 5000

void oracle_begin(void) { __asm__ volatile("" ::: "memory"); }
void oracle_end(long a, long b, long c, long d) {
  __asm__ volatile("" ::: "memory");
  (void)a, (void)b, (void)c, (void)d;
}

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long fails[NW], shared[32];
static int done[2], hold[2];

void contended(int me) { fails[me]++; }

static void *worker(void *arg) {
  int me = (int)(long)arg;
  char c;

  for (int i = 0; i < ITERS; i++) {
    while (pthread_mutex_trylock(&m) != 0)
      contended(me);
    for (int k = 0; k < 32; k++) /* long enough to be caught holding it */
      shared[k] += (i ^ k) & 7 ? k : -me;
    pthread_mutex_unlock(&m);
  }
  if (write(done[1], "d", 1) != 1 || read(hold[0], &c, 1) != 1) /* alive at oracle_end */
    return NULL;
  return NULL;
}

int main(void) {
  pthread_t t[NW];
  char c;

  if (pipe(done) < 0 || pipe(hold) < 0)
    return 1;
  oracle_begin();
  for (long i = 0; i < NW; i++)
    pthread_create(&t[i], NULL, worker, (void *)i);
  for (int i = 0; i < NW; i++)
    if (read(done[0], &c, 1) != 1)
      return 1;
  oracle_end(fails[0], fails[1], fails[2], fails[3]);
  for (int i = 0; i < NW; i++)
    if (write(hold[1], "q", 1) != 1)
      return 1;
  for (int i = 0; i < NW; i++)
    pthread_join(t[i], NULL);
  printf("%ld %ld %ld %ld %ld\n", fails[0], fails[1], fails[2], fails[3], shared[5]);
  return 0;
}
