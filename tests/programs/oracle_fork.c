/* oracle_fork.c: the traced parent forks; the child (not traced) works in
 * the parent's code and execs a shell that exits with what it computed;
 * the parent waits for it.  Then the same with vfork() and posix_spawn(),
 * whose children run in the parent's memory until they exec.  The parent's instructions from oracle_begin()
 * to oracle_end() are the oracle's sequence; the exit status says whether
 * the child ran as if nothing traced its parent (0: it did). */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

void oracle_begin(void) { __asm__ volatile("" ::: "memory"); }
void oracle_end(void) { __asm__ volatile("" ::: "memory"); }

extern char **environ;

static int work(int n) {
  int s = 0;

  for (int i = 0; i < n; i++)
    s += i % 3 ? i : -i;
  return s;
}

int main(void) {
  int expect = (work(200) & 0x7f) + 1, st = 0, ok = 0;
  pid_t pid;

  oracle_begin();
  pid = fork();
  if (pid == 0) {
    char cmd[32];

    /* the same code the parent runs (and ran traced) */
    snprintf(cmd, sizeof(cmd), "exit %d", (work(200) & 0x7f) + 1);
    execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
    _exit(127);
  }
  if (pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == expect)
    ok = 1;
  ok += work(50) == work(50);
  pid = vfork();
  if (pid == 0) {
    execl("/bin/sh", "sh", "-c", "exit 42", (char *)NULL);
    _exit(127);
  }
  if (pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 42)
    ok++;
  {
    char *argv[] = { "sh", "-c", "exit 43", NULL };

    if (posix_spawn(&pid, "/bin/sh", NULL, NULL, argv, environ) == 0 && waitpid(pid, &st, 0) == pid &&
        WIFEXITED(st) && WEXITSTATUS(st) == 43)
      ok++;
  }
  oracle_end();
  printf("children %s\n", ok == 4 ? "ok" : "broken");
  return ok == 4 ? 0 : 1;
}
