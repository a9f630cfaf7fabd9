/* oracle_timer.c: an interval timer (setitimer, SIGALRM; every 1 ms, or
 * every argv[1] microseconds) ticks while the program works: traced, the
 * handler's runs must leave the program room to work (untraced it takes
 * milliseconds), even when a tick comes faster than a tracer's stop.
 * oracle_end gets the number of ticks the handler counted; the handler
 * ends the program (status 3) past 20000 ticks: starved, it would never
 * finish.  The mask it reads back as it works is its own (else status 4). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include <unistd.h>

static volatile long ticks;

void oracle_begin(void) { __asm__ volatile("" ::: "memory"); }
void oracle_end(long counted) { __asm__ volatile("" ::: "memory"); (void)counted; }

static volatile long others;

/* (another signal, taken while a tick may be held: its frame saves the
 * program's own mask, and its return puts that back) */
void on_usr1(int sig) {
  (void)sig;
  others++;
}

void on_alarm(int sig) {
  (void)sig;
  if (++ticks > 20000)
    _exit(3);
}

int main(int argc, char **argv) {
  long us = argc > 1 ? atol(argv[1]) : 1000;
  struct itimerval it = { { 0, us }, { 0, us } }, off = { { 0, 0 }, { 0, 0 } };
  struct sigaction sa = { 0 };
  sigset_t alrm;
  volatile long s = 0;

  sa.sa_handler = on_alarm;
  sa.sa_flags = SA_RESTART;
  sigaction(SIGALRM, &sa, NULL);
  sa.sa_handler = on_usr1;
  sigaction(SIGUSR1, &sa, NULL);
  sigemptyset(&alrm);
  sigaddset(&alrm, SIGALRM);
  oracle_begin();
  setitimer(ITIMER_REAL, &it, NULL);
  for (long i = 0; i < 50000; i++) {
    s += i & 7;
    if ((i & 1023) == 0) {
      /* its own mask, as it set it (a tracer that blocks a held tick
       * in it must not show it): else status 4 */
      sigset_t now;

      if (sigprocmask(SIG_BLOCK, NULL, &now) != 0 || sigismember(&now, SIGALRM))
        _exit(4);
      if ((i & 4095) == 0)
        sigprocmask(SIG_SETMASK, &now, NULL);
      if ((i & 8191) == 0)
        raise(SIGUSR1);
    }
  }
  setitimer(ITIMER_REAL, &off, NULL);
  sigprocmask(SIG_BLOCK, &alrm, NULL);
  oracle_end(ticks);
  printf("%ld ticks, %ld others\n", ticks, others);
  return 0;
}
