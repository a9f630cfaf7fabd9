/* The watched-continue bench (tests/bench/watch_bench.py): a region of
 * ordinary work (stores through pointers, calls, libc's memset and memcpy)
 * timed by the program itself between bench_begin and bench_end (printed
 * as "region WALL CPU"), then a store into the watched variable: the
 * continue from bench_begin stops there. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

long watched;
static long table[256];
static char buf[1024], copy[1024];
static struct timespec w0, c0;

__attribute__((noinline)) void bench_begin(void)
{
	clock_gettime(CLOCK_MONOTONIC, &w0);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
}

__attribute__((noinline)) void bench_end(void)
{
	struct timespec w1, c1;

	clock_gettime(CLOCK_MONOTONIC, &w1);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
	fprintf(stderr, "region %.6f %.6f\n", (double)(w1.tv_sec - w0.tv_sec) + (double)(w1.tv_nsec - w0.tv_nsec) / 1e9,
		(double)(c1.tv_sec - c0.tv_sec) + (double)(c1.tv_nsec - c0.tv_nsec) / 1e9);
}

__attribute__((noinline)) static void fill(long *p, int n, long v)
{
	for (int i = 0; i < n; i++)
		p[i] = v + i;
}

__attribute__((noinline)) static long mix(long a, long b)
{
	return a * 31 + (b ^ (a >> 3));
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000, sum = 0;

	bench_begin();
	for (long k = 0; k < n; k++) {
		fill(table, 64, k);
		memset(buf, (int)k, sizeof(buf));
		memcpy(copy, buf, sizeof(copy));
		sum = mix(sum, table[k & 63] + copy[k & 1023]);
	}
	bench_end();
	watched = sum;
	printf("%ld\n", watched);
	return 0;
}
