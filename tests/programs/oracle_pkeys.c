/* oracle_pkeys.c: a program that uses protection keys itself.  It runs
 * code (so a tracer has planted its breakpoints), reads PKRU (the value it
 * read before oracle_begin: a tracer's key must not show) and its own
 * code, then allocates a key (the one it gets untraced: the first free),
 * protects a page of data with it, denies and allows writes with WRPKRU
 * (pkey_set), reading PKRU back each time, and frees it.  The exit status
 * says whether every value was the expected one (0: it was); on a CPU or
 * kernel without protection keys it checks nothing and exits 0. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

void oracle_begin(void) { __asm__ volatile("" ::: "memory"); }
void oracle_end(void) { __asm__ volatile("" ::: "memory"); }

__attribute__((noinline)) int work(int n)
{
  int s = 0;

  for (int i = 0; i < n; i++)
    s += i & 1 ? i : -i / 2;
  return s;
}

static unsigned rdpkru(void)
{
  unsigned eax, edx;

  __asm__ volatile(".byte 0x0f,0x01,0xee" : "=a"(eax), "=d"(edx) : "c"(0));
  return eax;
}

static int have_pku(void)
{
  unsigned a, b, c, d;

  __asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(7), "c"(0));
  return (c & (1u << 3)) && (c & (1u << 4));
}

int main(void)
{
  unsigned char fcopy[64];
  unsigned p0, p1, p2, p3;
  int bad = 0, k, r;
  volatile int *data = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

  if (!have_pku())
    return 0;
  memcpy(fcopy, (void *)work, sizeof(fcopy));
  p0 = rdpkru();
  oracle_begin();
  r = work(50);
  p1 = rdpkru();
  if (p1 != p0)
    bad |= 1;
  if (memcmp(fcopy, (void *)work, sizeof(fcopy)))
    bad |= 2;
  k = pkey_alloc(0, 0);
  if (k != 1)
    bad |= 4;
  if (k > 0) {
    if (pkey_mprotect((void *)data, 4096, PROT_READ | PROT_WRITE, k) < 0)
      bad |= 8;
    pkey_set(k, PKEY_DISABLE_WRITE);
    p2 = rdpkru();
    if (((p2 >> (2 * k)) & 3) != PKEY_DISABLE_WRITE)
      bad |= 16;
    pkey_set(k, 0);
    p3 = rdpkru();
    if ((p3 >> (2 * k)) & 3)
      bad |= 32;
    data[1] = r + work(10);
    pkey_free(k);
  }
  oracle_end();
  printf("pkru %08x/%08x key %d bad %d\n", p1, p0, k, bad);
  return bad;
}
