/* oracle_spin.c: two threads hand a turn back and forth by spinning on a
 * variable, without a system call: a traced thread in the code cache must
 * be preempted for the other to run at all.  Each counts the spins it
 * made (calls of spun()); main passes the counts to oracle_end(), the
 * worker still alive, so a trace can be checked against them. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#define HANDOFFS 6

void oracle_begin(void) { __asm__ volatile("" ::: "memory"); }
void oracle_end(long a, long b) { __asm__ volatile("" ::: "memory"); (void)a, (void)b; }

static volatile int turn;
static long spins[2];
static int hold[2];

void spun(int me) { spins[me]++; }

static void play(int me) {
  for (int i = 0; i < HANDOFFS; i++) {
    while (turn != me)
      spun(me);
    turn = !me;
  }
}

static void *worker(void *arg) {
  char c;

  (void)arg;
  play(1);
  if (read(hold[0], &c, 1) != 1) /* alive at oracle_end */
    return NULL;
  return NULL;
}

int main(void) {
  pthread_t t;

  if (pipe(hold) < 0)
    return 1;
  oracle_begin();
  pthread_create(&t, NULL, worker, NULL);
  play(0);
  while (turn != 0) /* the worker has played its last */
    ;
  oracle_end(spins[0], spins[1]);
  if (write(hold[1], "q", 1) != 1)
    return 1;
  pthread_join(t, NULL);
  printf("%ld %ld\n", spins[0], spins[1]);
  return 0;
}
