/* oracle.c: every control-flow kind the trace oracle checks, between
 * oracle_begin() and oracle_end(): loops, recursion, calls through function
 * pointers, a jump-table switch, PLT calls with lazy binding, a syscall
 * loop, a signal handler, setjmp/longjmp. */
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void oracle_begin(void) {}
void oracle_end(void) {}

static volatile int sink;
static jmp_buf env;

static int fib(int n) {
  return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

static int add1(int x) { return x + 1; }
static int dbl(int x) { return 2 * x; }

static int sw(int v) {
  switch (v & 7) {
  case 0: return 3;
  case 1: return 5;
  case 2: return 7;
  case 3: return 11;
  case 4: return 13;
  case 5: return 17;
  case 6: return 19;
  default: return 23;
  }
}

static void on_usr1(int sig) {
  sink += sig;
}

static void jump_back(int v) {
  longjmp(env, v);
}

int main(void) {
  int (*ops[2])(int) = { add1, dbl };
  char buf[64];

  int devnull = open("/dev/null", O_WRONLY);
  dup2(devnull, 1);
  signal(SIGUSR1, on_usr1);
  oracle_begin();
  for (int i = 0; i < 10; i++)
    sink += i % 3 ? i : -i;
  sink += fib(15);
  for (int i = 0; i < 64; i++)
    sink += ops[i & 1](i) + sw(i);
  snprintf(buf, sizeof(buf), "%d", sink);
  puts(buf);
  for (int i = 0; i < 400; i++)
    sink += (int)getppid() & 1;
  raise(SIGUSR1);
  if (setjmp(env) == 0)
    jump_back(3);
  sink += (int)strlen(buf);
  oracle_end();
  return 0;
}
