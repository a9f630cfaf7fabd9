/* tests/programs/symlibc.c: a program whose frames run through libc (qsort
 * calling back into cmp, printf): libc symbols from libc6-dbg. */
#include <stdio.h>
#include <stdlib.h>

static int cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

int main(void)
{
	int v[4] = { 3, 1, 2, 0 };

	qsort(v, 4, sizeof(v[0]), cmp);
	printf("%d %d\n", v[0], v[3]);
	return 0;
}
