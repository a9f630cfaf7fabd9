/* recurse.c: recursion for backtraces, step-in, finish and until. */
#include <stdio.h>

int fact(int n) {
  if (n <= 1)
    return 1;
  return n * fact(n - 1);
}

int main(int argc, char **argv) {
  int r = fact(5);
  int s = fact(argc + 2);
  printf("%d %d %s\n", r, s, argc > 1 ? argv[1] : "-");
  return 0;
}
