/* tests/programs/step_ret_o2.c: built -g -O2 -fPIE -pie (see the Makefile)
 * for tests/step_o2_test.py.  GCC inlines mix() into run(), and the
 * instruction after 'call load' (where 'finish' and 'n' out of load()
 * return) is the first of mix()'s inlined range: lldb-16 stops there at
 * mix()'s call site, line 25, and 'n' from it steps over the rest of
 * mix(). */
#include <stdio.h>

static inline unsigned mix(unsigned x)
{
	unsigned y = x * 2654435761u;

	return y ^ (y >> 15);
}

__attribute__((noinline)) unsigned load(const char *s)
{
	unsigned v = 0;

	while (*s)
		v = v * 31 + (unsigned char)*s++;
	return v;
}

__attribute__((noinline)) unsigned run(int argc, char **argv)
{
	unsigned total = 0;

	for (int i = 1; i < argc; i++)
		total += mix(load(argv[i]));
	printf("%u\n", total);
	return total;
}

int main(int argc, char **argv)
{
	return run(argc, argv) & 1;
}
