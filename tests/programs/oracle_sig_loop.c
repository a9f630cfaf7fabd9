/* oracle_sig_loop.c: a loop the ptrace engine ran first (a signal waited,
 * blocked, meanwhile: that engine takes such turns, and its breakpoints
 * stay in the loop), then the cache engine: there the loop must run in
 * the cache, not leave it on every pass (Go's preempted loops: SIGURG).
 * After oracle_end a second thread works while main waits for it in a
 * loop through wait_pass (the test puts a breakpoint there whose
 * condition is never true): main's turn must end for the worker to run.
 * A run that hangs ends by the alarm (SIGALRM). */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

static volatile int done, handled;

void oracle_begin(void) { __asm__ volatile("" ::: "memory"); }
void oracle_end(void) { __asm__ volatile("" ::: "memory"); }
void wait_pass(void) { __asm__ volatile("" ::: "memory"); }

__attribute__((noinline)) long spin(long n) {
  long s = 0;

  for (long i = 0; i < n; i++)
    s += i % 7;
  return s;
}

static void on_usr1(int sig) {
  (void)sig;
  handled++;
}

static void *worker(void *arg) {
  long s = spin(5000);

  (void)arg;
  done = 1;
  return (void *)s;
}

int main(void) {
  struct sigaction sa = { 0 };
  sigset_t m;
  pthread_t t;
  long s;

  sa.sa_handler = on_usr1;
  sigaction(SIGUSR1, &sa, NULL);
  sigemptyset(&m);
  sigaddset(&m, SIGUSR1);
  alarm(60);
  oracle_begin();
  sigprocmask(SIG_BLOCK, &m, NULL);
  raise(SIGUSR1);		/* pending while blocked */
  s = spin(100);		/* the ptrace engine's turns */
  sigprocmask(SIG_UNBLOCK, &m, NULL);	/* the handler runs */
  s += spin(600);		/* the cache engine's */
  oracle_end();
  pthread_create(&t, NULL, worker, NULL);
  while (!done)
    wait_pass();
  pthread_join(t, NULL);
  printf("%ld %d\n", s, handled);
  return handled == 1 ? 0 : 1;
}
