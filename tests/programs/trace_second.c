/* trace_second.c: fixture for the REPL's progress test: it computes for
 * two seconds of wall time however fast it runs (natively, or traced by
 * either software engine), so a traced 'continue' over it takes at least
 * that long.  Long straight runs between branches: a trace of a few MiB
 * holds its first seconds even at native speed.  Breakpoint: second_over. */
#include <time.h>

volatile unsigned sink;

static long long elapsed_ns(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000000000LL + (t.tv_nsec - t0->tv_nsec);
}

void second_over(unsigned v)
{
	sink = v;
}

int main(void)
{
	struct timespec t0;
	unsigned a = 1, b = 2, c = 3, d = 4;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (int i = 0; i < 1000; i++) {
			a = a * 3 + b;
			b ^= a >> 3;
			c += a + b;
			d ^= c << 1;
			a += d;
			b -= c;
			c ^= d >> 2;
			d += a ^ b;
			a = a * 5 + d;
			b ^= c >> 5;
			c += a - b;
			d ^= c << 3;
			a -= d;
			b += c;
			c ^= d >> 1;
			d -= a ^ b;
		}
	} while (elapsed_ns(&t0) < 2000000000LL);
	second_over(a + b + c + d);
	return 0;
}
