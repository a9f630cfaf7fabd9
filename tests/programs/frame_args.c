/* tests/programs/frame_args.c: a function whose frame line shows each kind
 * of argument lldb-16 summarizes (tests/lldb_compare_test.py, transcript
 * 0169): strings by their text alone, a string cut at 1024 characters,
 * NULL pointers as 0x0, a struct with a pointer member as "pair @ addr",
 * one of scalars in one line, a typedef'd size. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct node {
	int v;
	struct node *next;
};
typedef unsigned long mysize;
struct pair {
	const char *a;
	struct node *n;
};
struct span {
	int lo, hi;
};

__attribute__((noinline)) int take(const char *name, struct node *n, char *buf, size_t len,
				   const char *nul, mysize ms, struct pair pr, struct span sp)
{
	const char c = name[0];
	size_t sz = len + (size_t)sp.hi;

	printf("%c %zu %s %p %lu %s %d\n", c, sz, buf, (void *)n, ms, pr.a, sp.lo);
	return (int)len + (nul != 0);
}

int main(void)
{
	char *big = malloc(3000);
	struct pair pr = { "pa", NULL };
	struct span sp = { 1, 2 };

	memset(big, 'a', 2999);
	big[2999] = 0;
	return take("LOCPATH", NULL, big, strlen(big), NULL, 5, pr, sp) > 0 ? 0 : 1;
}
