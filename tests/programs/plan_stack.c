/* Fixture: steps that a breakpoint deeper in the same thread interrupts
 * (LLDB's plan stack): main calls mid(), which calls leaf(); mid()'s
 * calls are statements, so a return from one lands on the next line;
 * twice() returns a value main stores, so a return lands mid-line. */
static volatile int hits;

void leaf(int n)
{
	hits += n;
}

void mid(int n)
{
	leaf(n);
	hits++;
}

int twice(int n)
{
	leaf(n);
	return n * 2;
}

int main(void)
{
	int a;

	mid(1);
	mid(2);
	a = twice(3);
	a += twice(4);
	mid(5);
	twice(6);
	return a + hits;
}
