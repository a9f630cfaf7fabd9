/* loop.c (-O0): a 20,000-iteration loop with an if/else. */
void __attribute__((noinline, noipa)) bench_begin(void) { __asm__ volatile("" ::: "memory"); }
void __attribute__((noinline, noipa)) bench_end(void) { __asm__ volatile("" ::: "memory"); }
volatile long sink;
int main(void) {
  bench_begin();
  for (int i = 0; i < 20000; i++) {
    if (i % 3)
      sink += i;
    else
      sink -= i;
  }
  bench_end();
  return 0;
}
