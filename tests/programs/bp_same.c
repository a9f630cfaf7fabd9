/* Fixture: two breakpoints at one address (hit(), called with 1 then 2);
 * finishes that a breakpoint deeper in the same thread comes before
 * (outer() calls inner(); rec() calls itself). */
static volatile int hits;

void hit(int who)
{
	hits += who;
}

int inner(int n)
{
	return n + 1;
}

int outer(int n)
{
	int r = inner(n);
	return r * 2;
}

int rec(int n)
{
	if (n == 0)
		return 0;
	return rec(n - 1) + 1;
}

int main(void)
{
	int a;

	hit(1);
	hit(2);
	a = outer(3);
	a += outer(4);
	a += rec(3);
	return a + hits;
}
