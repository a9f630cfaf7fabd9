/* oracle_nested.c: GCC nested functions whose address is taken.  Each
 * call through such a pointer runs a trampoline GCC writes on the stack
 * (this program's stack is executable); two nested functions take turns
 * at the same depth, so the same stack bytes hold one trampoline, then
 * the other: code rewritten in place.  The exit status says whether every
 * call went where it should (0: the sums agree with a plain computation). */
#include <stdio.h>

void oracle_begin(void) { __asm__ volatile("" ::: "memory"); }
void oracle_end(void) { __asm__ volatile("" ::: "memory"); }

__attribute__((noinline)) static long apply(long (*f)(long), long n) {
  long s = 0;

  for (long i = 0; i < n; i++)
    s += f(i);
  return s;
}

__attribute__((noinline)) static long with_add(int k, int depth) {
  long add(long x) { return x * k + depth; }

  return apply(add, 8);
}

__attribute__((noinline)) static long with_sub(int k, int depth) {
  long sub(long x) { return x * depth - k; }

  return apply(sub, 8);
}

/* the same, plainly */
static long plain(int k, int depth, int which) {
  long s = 0;

  for (long x = 0; x < 8; x++)
    s += which ? x * depth - k : x * k + depth;
  return s;
}

int main(void) {
  long got = 0, want = 0;

  oracle_begin();
  for (int k = 1; k <= 6; k++)
    for (int depth = 0; depth < 3; depth++) {
      got += (k & 1) ? with_add(k, depth) : with_sub(k, depth);
      want += plain(k, depth, !(k & 1));
    }
  oracle_end();
  printf("%ld %ld\n", got, want);
  return got == want ? 0 : 1;
}
