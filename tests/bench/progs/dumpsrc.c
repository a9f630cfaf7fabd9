/* dumpsrc.c: the trace for the dump benchmark: about 6 M instructions of a
 * straight-line loop between bench_begin and bench_end. */
volatile unsigned sink;

void bench_begin(void)
{
}

void bench_end(void)
{
}

int main(void)
{
	unsigned a = 1, b = 2, c = 3, d = 4;

	bench_begin();
	for (int i = 0; i < 200000; i++) {
		a = a * 3 + b;
		b ^= a >> 3;
		c += a + b;
		d ^= c << 1;
		a += d;
		b -= c;
		c ^= d >> 2;
		d += a ^ b;
	}
	sink = a + b + c + d;
	bench_end();
	return 0;
}
