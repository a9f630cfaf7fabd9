/* bigloop.c (-O0): loop.c's loop for argv[1] iterations (~13 instructions
 * and two conditional branches each): traces of billions of instructions. */
#include <stdlib.h>
void __attribute__((noinline, noipa)) bench_begin(void) { __asm__ volatile("" ::: "memory"); }
void __attribute__((noinline, noipa)) bench_end(void) { __asm__ volatile("" ::: "memory"); }
volatile long sink;
int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 1000000;
  bench_begin();
  for (long i = 0; i < n; i++) {
    if (i % 3)
      sink += i;
    else
      sink -= i;
  }
  bench_end();
  return 0;
}
