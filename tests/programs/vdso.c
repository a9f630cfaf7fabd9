/* vdso.c: calls into the vDSO (clock_gettime) between two breakpoints. */
#include <stdio.h>
#include <time.h>

void vdso_begin(void) { __asm__ volatile("" ::: "memory"); }
void vdso_end(void) { __asm__ volatile("" ::: "memory"); }

int main(void) {
  struct timespec ts;
  long sum = 0;

  vdso_begin();
  for (int i = 0; i < 3; i++) {
    clock_gettime(CLOCK_MONOTONIC, &ts);
    sum += ts.tv_nsec & 1;
  }
  vdso_end();
  printf("%ld\n", sum);
  return 0;
}
