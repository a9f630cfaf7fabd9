/* oracle2.cpp: more control flow for the tracing oracle, between
 * oracle_begin() and oracle_end(): a C++ exception thrown and caught three
 * frames up, qsort with a callback, glibc's vectorised string functions on
 * many sizes, dlopen and a call through the symbol, tail-call mutual
 * recursion compiled at -O2, and a timer signal that ends a wait (blocked
 * until sigsuspend, so it arrives there however slowly the run goes). */
#include <dlfcn.h>
#include <signal.h>
#include <stdexcept>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

extern "C" void oracle_begin(void) {}
extern "C" void oracle_end(void) {}

volatile long sink;
static volatile sig_atomic_t ticks;

static void __attribute__((noinline)) thrower(int n)
{
  if (n > 2)
    throw std::runtime_error("three frames");
  sink += n;
}
static void __attribute__((noinline)) frame2(int n) { thrower(n + 1); sink++; }
static void __attribute__((noinline)) frame1(int n) { frame2(n + 1); sink++; }

static int cmp(const void *a, const void *b)
{
  return *(const int *)a - *(const int *)b;
}

/* at -O2 the calls below are jumps: tail-call mutual recursion */
extern "C" int __attribute__((noinline, optimize("O2"))) is_odd(unsigned n);
extern "C" int __attribute__((noinline, optimize("O2"))) is_even(unsigned n)
{
  return n == 0 ? 1 : is_odd(n - 1);
}
extern "C" int __attribute__((noinline, optimize("O2"))) is_odd(unsigned n)
{
  return n == 0 ? 0 : is_even(n - 1);
}

static void on_usr1(int) { ticks++; }

int main(int, char **argv)
{
  static char a[300], b[300];
  int v[40];
  char path[4096];
  const char *slash = strrchr(argv[0], '/');
  struct sigevent ev;
  timer_t tm;
  struct itimerspec its;

  sigset_t block, open_mask;

  signal(SIGUSR1, on_usr1);
  sigemptyset(&block);
  sigaddset(&block, SIGUSR1);
  sigprocmask(SIG_BLOCK, &block, &open_mask);
  memset(&ev, 0, sizeof(ev));
  ev.sigev_notify = SIGEV_SIGNAL;
  ev.sigev_signo = SIGUSR1;
  timer_create(CLOCK_MONOTONIC, &ev, &tm);
  memset(&its, 0, sizeof(its));
  its.it_value.tv_nsec = 5000000;
  snprintf(path, sizeof(path), "%.*s/libplugin.so", slash ? (int)(slash - argv[0]) : 1,
           slash ? argv[0] : ".");
  for (int i = 0; i < 40; i++)
    v[i] = (i * 7919) % 41;
  memset(a, 'x', sizeof(a) - 1);
  /* the first throw binds symbols and fills the unwinder's caches (some
   * 37,000 instructions): done once before, the traced one is shorter */
  try {
    frame1(1);
  } catch (const std::exception &e) {
    sink++;
  }
  oracle_begin();
  try {
    frame1(1);
  } catch (const std::exception &e) {
    sink += (long)strlen(e.what());
  }
  qsort(v, 40, sizeof(v[0]), cmp);
  for (int n = 1; n < (int)sizeof(a); n += 37) {
    memcpy(b, a, n);
    b[n] = 0;
    sink += (long)strlen(b) + (memchr(b, 'y', n) != NULL);
  }
  sink += is_even(101);
  void *h = dlopen(path, RTLD_NOW);
  if (h) {
    int (*fn)(int) = (int (*)(int))dlsym(h, "plugin_twice");
    sink += fn(21);
  }
  timer_settime(tm, 0, &its, NULL);
  while (!ticks)
    sigsuspend(&open_mask);
  oracle_end();
  return 0;
}
