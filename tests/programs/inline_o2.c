/* tests/programs/inline_o2.c: built -O2 -fPIE -pie (see the Makefile) with its
 * DWARF paths under /ptdb-moved (-fdebug-prefix-map): init_registry and sum
 * are inlined into open_state ([inlined] frames), and its source is found
 * only through target.source-map. */
#include <stdio.h>
#include <stdlib.h>

struct state { int *reg; int n; };

static void init_registry(struct state *s, int n)
{
	s->reg = malloc(sizeof(int) * (size_t)n);
	for (int i = 0; i < n; i++)
		s->reg[i] = i * 3;
	s->n = n;
}

static int sum(const struct state *s)
{
	int t = 0;

	for (int i = 0; i < s->n; i++)
		t += s->reg[i];
	return t;
}

__attribute__((noinline)) int open_state(int n)
{
	struct state s;

	init_registry(&s, n);
	int t = sum(&s);
	free(s.reg);
	return t;
}

int main(int argc, char **argv)
{
	int t = open_state(argc + 9);

	printf("%d\n", t);
	return 0;
}
