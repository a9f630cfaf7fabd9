/* cache_long.c: between oracle_begin() and oracle_end(), 20,000 loop
 * iterations with an if/else, a call and a return each (about a hundred
 * thousand blocks: the cache engine's record buffer fills and is drained
 * many times), plus a rep-prefixed copy and a switch through a jump table. */
#include <string.h>

volatile long sink;
static char src[256], dst[256];

void oracle_begin(void) {}
void oracle_end(void) {}

static long __attribute__((noinline)) step(long i)
{
  switch (i & 7) {
  case 0: return i * 3;
  case 1: return i ^ 5;
  case 2: return i + 11;
  case 3: return i - 2;
  case 4: return i << 1;
  case 5: return i >> 1;
  case 6: return ~i;
  default: return i;
  }
}

int main(void)
{
  oracle_begin();
  for (long i = 0; i < 20000; i++) {
    if (i % 3)
      sink += step(i);
    else
      sink -= i;
    if ((i & 1023) == 0) {
      memcpy(dst, src, sizeof(dst));
      __asm__ volatile("rep movsb" : : "D"(dst), "S"(src), "c"(64L) : "memory");
    }
  }
  oracle_end();
  return 0;
}
