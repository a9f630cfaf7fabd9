/* oracle_code_move.c: code that moves.  JIT code is called, moved with
 * mremap to another address and called there, its old place filled with
 * the same code again and called, then its new page re-protected W^X
 * (writable, then executable again) and called, then a round's code of
 * another shape written there and called; both pages are unmapped at the
 * end.  The exit status says whether every call returned what its code
 * computes (0: it did). */
#define _GNU_SOURCE
#include <stdio.h>
#include <sys/mman.h>

#include "lib/jitcode.h"

void oracle_begin(void) { __asm__ volatile("" ::: "memory"); }
void oracle_end(void) { __asm__ volatile("" ::: "memory"); }

static unsigned char *jit_page(void *at, int round)
{
  unsigned char *p = mmap(at, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | (at ? MAP_FIXED : 0), -1, 0);

  if (p == MAP_FAILED)
    return NULL;
  jit_code(p, round);
  return mprotect(p, 4096, PROT_READ | PROT_EXEC) < 0 ? NULL : p;
}

static int call(unsigned char *p) { return ((int (*)(void))p)(); }

int main(void) {
  unsigned char *a = jit_page(NULL, 2), *b = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  int bad = 0;

  if (!a || b == MAP_FAILED)
    return 2;
  oracle_begin();
  bad += call(a) != jit_expect(2);
  if (mremap(a, 4096, 4096, MREMAP_MAYMOVE | MREMAP_FIXED, b) != b)
    return 2;
  bad += call(b) != jit_expect(2);
  if (jit_page(a, 2) != a)
    return 2;
  bad += call(a) != jit_expect(2);
  if (mprotect(b, 4096, PROT_READ | PROT_WRITE) < 0 || mprotect(b, 4096, PROT_READ | PROT_EXEC) < 0)
    return 2;
  bad += call(b) != jit_expect(2);
  bad += call(a) != jit_expect(2);
  if (mprotect(b, 4096, PROT_READ | PROT_WRITE) < 0)
    return 2;
  jit_code(b, 4);
  if (mprotect(b, 4096, PROT_READ | PROT_EXEC) < 0)
    return 2;
  bad += call(b) != jit_expect(4);
  munmap(a, 4096);
  munmap(b, 4096);
  oracle_end();
  printf("%d calls of 6 went wrong\n", bad);
  return bad != 0;
}
