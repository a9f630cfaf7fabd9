/* threads.c (-O0): four threads, each a 10,000-iteration loop with an
 * if/else and a call, adding into a shared total under a mutex every 1,000
 * iterations; main starts them and joins them between the breakpoints. */
#include <pthread.h>

void __attribute__((noinline, noipa)) bench_begin(void) { __asm__ volatile("" ::: "memory"); }
void __attribute__((noinline, noipa)) bench_end(void) { __asm__ volatile("" ::: "memory"); }
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
volatile long total;

static long step(long acc, int i) { return i % 3 ? acc + i : acc - i; }

static void *work(void *arg) {
  long acc = (long)arg;

  for (int i = 0; i < 10000; i++) {
    acc = step(acc, i);
    if (i % 1000 == 999) {
      pthread_mutex_lock(&m);
      total += acc;
      pthread_mutex_unlock(&m);
    }
  }
  return 0;
}

int main(void) {
  pthread_t t[4];

  bench_begin();
  for (long i = 0; i < 4; i++)
    pthread_create(&t[i], 0, work, (void *)i);
  for (int i = 0; i < 4; i++)
    pthread_join(t[i], 0);
  bench_end();
  return total == 0;
}
