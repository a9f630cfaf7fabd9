/* cache_threads4.c: four threads that only compute (no system call, no
 * lock between oracle_begin and their joins), each through a few dozen
 * small blocks (a switch over the counter's low bits): under the cache
 * engine with threads in parallel none of them ever waits, so an exit to
 * a block translated meanwhile is linked while they all run, or not at
 * all until the run ends. */
#include <pthread.h>
#include <stdio.h>

void oracle_begin(void) { __asm__ volatile("" ::: "memory"); }
void oracle_end(void) { __asm__ volatile("" ::: "memory"); }

static long sums[4][8];	/* (a cache line each) */

static void *work(void *arg) {
  long *s = arg, x = 0;

  for (long i = 0; i < 3000000; i++) {
    switch (i & 15) {
    case 0: x += i; break;
    case 1: x ^= i << 1; break;
    case 2: x -= i >> 2; break;
    case 3: x += 3; break;
    case 4: x *= 3; break;
    case 5: x ^= 0x55; break;
    case 6: x += i & 7; break;
    case 7: x -= 9; break;
    case 8: x |= 1; break;
    case 9: x &= ~2l; break;
    case 10: x += x >> 3; break;
    case 11: x ^= i; break;
    case 12: x -= i & 3; break;
    case 13: x += 13; break;
    case 14: x ^= x << 2; break;
    default: x += 1; break;
    }
  }
  *s = x;
  return NULL;
}

int main(void) {
  pthread_t t[4];

  oracle_begin();
  for (int i = 0; i < 4; i++)
    pthread_create(&t[i], NULL, work, sums[i]);
  for (int i = 0; i < 4; i++)
    pthread_join(t[i], NULL);
  oracle_end();
  printf("%ld\n", sums[0][0] + sums[1][0] + sums[2][0] + sums[3][0]);
  return 0;
}
