// Fixture: C++ references and pointers to a struct, shown in a format
// (frame variable -f x, p/x, p/d) as lldb-16 shows them.
#include <cstdio>

struct pt {
	int x, y;
	const char *name;
};

static int use(int &ri, pt &rp, const pt *pp, pt *np, int *ip)
{
	int local = ri + rp.x + (np ? 1 : 0) + *ip;

	printf("%d %s\n", local, pp->name);
	return local;
}

int main()
{
	int v = 42;
	pt p = { 3, -4, "hi" };
	pt *pnull = nullptr;

	return use(v, p, &p, pnull, &v) == 0;
}
