/* oracle_jit_wx.c: a W^X JIT.  Each round makes its code page writable
 * (not executable), writes the round's code, makes it executable (not
 * writable) and calls it; the page is unmapped at the end (a trace
 * decodes against the code as it ran, kept by the tracer).  The exit
 * status says whether every round ran its own code (0: it did). */
#include <stdio.h>
#include <sys/mman.h>

#include "lib/jitcode.h"

void oracle_begin(void) { __asm__ volatile("" ::: "memory"); }
void oracle_end(void) { __asm__ volatile("" ::: "memory"); }

int main(void) {
  unsigned char *mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  int bad = 0;

  if (mem == MAP_FAILED)
    return 2;
  oracle_begin();
  for (int r = 0; r < 6; r++) {
    int got;

    if (mprotect(mem, 4096, PROT_READ | PROT_WRITE) < 0)
      return 2;
    jit_code(mem, r);
    if (mprotect(mem, 4096, PROT_READ | PROT_EXEC) < 0)
      return 2;
    got = ((int (*)(void))mem)();
    bad += got != jit_expect(r);
  }
  munmap(mem, 4096);
  oracle_end();
  printf("%d rounds of 6 ran stale code\n", bad);
  return bad != 0;
}
