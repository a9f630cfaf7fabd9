/* oracle_code_read.c: a program that reads its own code.  Before
 * oracle_begin it copies its .text, the bytes of work(), of libc's puts
 * and of a JIT page; between oracle_begin and oracle_end it runs that
 * code (so a tracer has reached its branches and returns), then reads it
 * again: byte by byte (a checksum), with memcmp (wide loads), with a rep
 * string copy, and across the JIT page; it branches on each result.  The
 * exit status says whether every read saw the bytes it copied (0: it did);
 * it prints the checksums. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "lib/jitcode.h"

void oracle_begin(void) { __asm__ volatile("" ::: "memory"); }
void oracle_end(void) { __asm__ volatile("" ::: "memory"); }

extern void _init(void);
extern char etext[];

/* Branches and returns a tracer plants its breakpoints at. */
__attribute__((noinline)) int work(int n)
{
  int s = 0;

  for (int i = 0; i < n; i++)
    s += i & 1 ? i : -i / 2;
  return s;
}

__attribute__((noinline)) static uint32_t checksum(const volatile unsigned char *p, size_t n)
{
  uint32_t s = 0;

  for (size_t i = 0; i < n; i++)
    s = s * 31 + p[i];
  return s;
}

static void rep_copy(void *dst, const void *src, size_t n)
{
  __asm__ volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(n) : : "memory");
}

int main(void)
{
  const unsigned char *text = (const unsigned char *)_init, *fn = (const unsigned char *)work,
                      *lib = (const unsigned char *)puts;
  size_t tlen = (size_t)(etext - (const char *)text);
  unsigned char *copy = malloc(tlen), fcopy[64], lcopy[256], jcopy[JIT_LEN], buf[256];
  unsigned char *jit = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  uint32_t want, got, fwant, fgot;
  int bad = 0, r;

  if (!copy || jit == MAP_FAILED)
    return 2;
  jit_code(jit, 1);
  if (mprotect(jit, 4096, PROT_READ | PROT_EXEC) < 0)
    return 2;
  memcpy(copy, text, tlen);
  memcpy(fcopy, fn, sizeof(fcopy));
  memcpy(lcopy, lib, sizeof(lcopy));
  memcpy(jcopy, jit, sizeof(jcopy));
  want = checksum(copy, tlen);
  fwant = checksum(fcopy, sizeof(fcopy));

  oracle_begin();
  r = work(50) + ((int (*)(void))jit)();
  puts("reading");
  got = checksum(text, tlen);
  fgot = checksum(fn, sizeof(fcopy));
  if (got != want)
    bad |= 1;
  if (fgot != fwant)
    bad |= 2;
  if (memcmp(lib, lcopy, sizeof(lcopy)))
    bad |= 4;
  rep_copy(buf, fn, sizeof(fcopy));
  if (memcmp(buf, fcopy, sizeof(fcopy)))
    bad |= 8;
  if (memcmp(jit, jcopy, sizeof(jcopy)))
    bad |= 16;
  r += work(10) + ((int (*)(void))jit)();
  oracle_end();
  printf("text %08x/%08x work %08x/%08x r %d bad %d\n", got, want, fgot, fwant, r, bad);
  return bad ? 1 : 0;
}
