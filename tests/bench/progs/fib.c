/* fib.c (-O0): recursion. */
void __attribute__((noinline, noipa)) bench_begin(void) { __asm__ volatile("" ::: "memory"); }
void __attribute__((noinline, noipa)) bench_end(void) { __asm__ volatile("" ::: "memory"); }
volatile long sink;
static int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
int main(void) {
  bench_begin();
  sink = fib(18);
  bench_end();
  return 0;
}
