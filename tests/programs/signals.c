/* signals.c: raises SIGUSR1 (handled) then SIGSEGV (fatal). */
#include <signal.h>
#include <stdio.h>

static volatile int got;

static void on_usr1(int sig) {
  got = sig;
}

int main(void) {
  signal(SIGUSR1, on_usr1);
  raise(SIGUSR1);
  printf("got %d\n", got);
  fflush(stdout);
  volatile int *p = 0;
  *p = 1;
  return 0;
}
