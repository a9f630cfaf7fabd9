/* oracle_clone_vm.c: a child made by clone(CLONE_VM) runs in the parent's
 * memory (not traced), working in the same function the parent works in
 * meanwhile, and exits; the parent waits for it and works again.  The
 * user's breakpoint on oracle_end must still stop the parent after the
 * child is gone; the exit status says whether both computed what they
 * should and the child exited normally (0: they did). */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

void oracle_begin(void) { __asm__ volatile("" ::: "memory"); }
void oracle_end(void) { __asm__ volatile("" ::: "memory"); }

static volatile int child_result, parent_done;

static int work(int n) {
  int s = 0;

  for (int i = 0; i < n; i++)
    s += i % 7 ? i : -i;
  return s;
}

/* works until the parent has worked (beside it, in the same code) */
static int child(void *arg) {
  int r;

  (void)arg;
  do
    r = work(300);
  while (!parent_done);
  child_result = r;
  return 0;
}

int main(void) {
  char *stack = malloc(1 << 16);
  int st = -1, a, b, want = work(300);
  pid_t pid;

  oracle_begin();
  pid = clone(child, stack + (1 << 16), CLONE_VM | SIGCHLD, NULL);
  a = work(300);
  parent_done = 1;
  if (pid < 0 || waitpid(pid, &st, 0) != pid)
    return 2;
  b = work(300);
  oracle_end();
  printf("child %d (status %d), parent %d %d\n", child_result, st, a, b);
  return WIFEXITED(st) && WEXITSTATUS(st) == 0 && child_result == want && a == b ? 0 : 1;
}
