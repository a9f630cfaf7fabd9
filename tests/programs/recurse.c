/* recurse.c: recursion, calls through function pointers and a switch. */
#include <stdio.h>

int fact(int n) {
  if (n <= 1)
    return 1;
  return n * fact(n - 1);
}

static int twice(int x) { return 2 * x; }
static int square(int x) { return x * x; }

int classify(int v) {
  switch (v % 8) {
  case 0: return 10;
  case 1: return 11;
  case 2: return 12;
  case 3: return 13;
  case 4: return 14;
  case 5: return 15;
  case 6: return 16;
  default: return 17;
  }
}

int main(int argc, char **argv) {
  int r = fact(5);
  int s = fact(argc + 2);
  printf("%d %d %s\n", r, s, argc > 1 ? argv[1] : "-");
  int (*ops[2])(int) = { twice, square };
  int t = 0;
  for (int i = 0; i < 4; i++)
    t += ops[i % 2](i) + classify(i + r);
  printf("%d\n", t);
  return 0;
}
