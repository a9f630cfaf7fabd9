/* oracle_jit_dual.c: a JIT with its code in a memfd mapped twice, a
 * writable view and an executable one (the usual W^X double mapping).
 * Rounds write their code through the writable view, or with pwrite on
 * the memfd, then call it through the executable view; at the end the
 * code is wiped (int3s) through the writable view.  The exit status
 * says whether every round ran its own code (0: it did). */
#define _GNU_SOURCE
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/jitcode.h"

void oracle_begin(void) { __asm__ volatile("" ::: "memory"); }
void oracle_end(void) { __asm__ volatile("" ::: "memory"); }

int main(void) {
  int fd = memfd_create("jit", 0), bad = 0;
  unsigned char *rw, *rx;

  if (fd < 0 || ftruncate(fd, 4096) < 0)
    return 2;
  rw = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  rx = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0);
  if (rw == MAP_FAILED || rx == MAP_FAILED)
    return 2;
  oracle_begin();
  for (int r = 0; r < 6; r++) {
    unsigned char code[JIT_LEN];
    int got;

    jit_code(code, r);
    if (r & 1) {
      if (pwrite(fd, code, JIT_LEN, 0) != JIT_LEN)
        return 2;
    } else {
      memcpy(rw, code, JIT_LEN);
    }
    got = ((int (*)(void))rx)();
    bad += got != jit_expect(r);
  }
  memset(rw, 0xcc, JIT_LEN);
  oracle_end();
  printf("%d rounds of 6 ran stale code\n", bad);
  return bad != 0;
}
