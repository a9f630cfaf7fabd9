/* oracle_code_read_thread.c: a thread that is not traced reads code the
 * traced thread runs.  Main runs work() (so a tracer has planted its
 * breakpoints there), starts a thread that checksums work()'s bytes and
 * the whole .text again and again while main runs work() on (a fixed
 * number of times: main's instructions do not depend on the thread's),
 * and after oracle_end takes its verdict.  The exit status says whether
 * the thread read the bytes main copied before oracle_begin every time (0:
 * it did). */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void oracle_begin(void) { __asm__ volatile("" ::: "memory"); }
void oracle_end(void) { __asm__ volatile("" ::: "memory"); }

extern void _init(void);
extern char etext[];

static uint32_t want_fn, want_text;
static volatile int main_done, rounds_before;	/* (printed: how many ran beside main) */

__attribute__((noinline)) int work(int n)
{
  int s = 0;

  for (int i = 0; i < n; i++)
    s += i & 1 ? i : -i / 2;
  return s;
}

static uint32_t checksum(const volatile unsigned char *p, size_t n)
{
  uint32_t s = 0;

  for (size_t i = 0; i < n; i++)
    s = s * 31 + p[i];
  return s;
}

static void *reader(void *arg)
{
  intptr_t verdict = 0;

  (void)arg;
  for (int round = 0; round < 3; round++) {
    rounds_before += !main_done;
    if (checksum((const unsigned char *)work, 64) != want_fn)
      verdict |= 1;
    if (checksum((const unsigned char *)_init, (size_t)(etext - (char *)_init)) != want_text)
      verdict |= 2;
  }
  return (void *)verdict;
}

int main(void)
{
  pthread_t t;
  void *verdict = (void *)4;
  int r;

  want_fn = checksum((const unsigned char *)work, 64);
  want_text = checksum((const unsigned char *)_init, (size_t)(etext - (char *)_init));
  oracle_begin();
  r = work(50);
  if (pthread_create(&t, NULL, reader, NULL) != 0)
    return 2;
  for (int i = 0; i < 200; i++)
    r += work(40);
  oracle_end();
  main_done = 1;
  pthread_join(t, &verdict);
  printf("r %d verdict %d, %d of 3 rounds begun before oracle_end\n", r, (int)(intptr_t)verdict, rounds_before);
  return (int)(intptr_t)verdict;
}
