/* indirect.c (-O1): calls through a function-pointer table and a switch
 * compiled to a jump table. */
void __attribute__((noinline, noipa)) bench_begin(void) { __asm__ volatile("" ::: "memory"); }
void __attribute__((noinline, noipa)) bench_end(void) { __asm__ volatile("" ::: "memory"); }
volatile long sink;
static int __attribute__((noinline)) f0(int x) { return x + 1; }
static int __attribute__((noinline)) f1(int x) { return x * 3; }
static int __attribute__((noinline)) f2(int x) { return x ^ 5; }
static int __attribute__((noinline)) f3(int x) { return x - 7; }
static int (*const tab[4])(int) = { f0, f1, f2, f3 };
static int __attribute__((noinline)) sw(int v) {
  switch (v & 7) {
  case 0: return v + 3;
  case 1: return v * 5;
  case 2: return v - 7;
  case 3: return v ^ 11;
  case 4: return v + 13;
  case 5: return v * 17;
  case 6: return v - 19;
  default: return v ^ 23;
  }
}
int main(void) {
  bench_begin();
  for (int i = 0; i < 20000; i++)
    sink += tab[i & 3](i) + sw(i);
  bench_end();
  return 0;
}
