/* steady.c (-O1): long regions for the steady-state bench (steady.py).
 * steady MODE N [T]: MODE is loop, fib, indirect or threads, N scales the
 * work; threads shares N iterations of loop among T threads (default 4,
 * at most 8), so one thread and four do the same work.
 * The region lies between bench_begin() and bench_end(); the program times
 * it itself (monotonic clock and process CPU time, read just after
 * bench_begin returns and just before bench_end is called) and prints
 * "region WALL_S CPU_S" on stderr, so a traced run and a native one are
 * timed the same way, without the debugger's start-up or stops. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void __attribute__((noinline, noipa)) bench_begin(void) { __asm__ volatile("" ::: "memory"); }
void __attribute__((noinline, noipa)) bench_end(void) { __asm__ volatile("" ::: "memory"); }

volatile long sink;

static double now(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* (the sum goes to *out, a volatile store per iteration: the global sink
 * for the loop row, each worker's own variable for the threads rows, so
 * four threads do not fight over one cache line and are CPU-bound) */
static void loop(long n, volatile long *out)
{
	for (long i = 0; i < n; i++) {
		if (i % 3)
			*out += i;
		else
			*out -= i;
	}
}

static long __attribute__((noinline)) fib(int k)
{
	return k < 2 ? k : fib(k - 1) + fib(k - 2);
}

static long __attribute__((noinline)) op_add(long a) { return a + 3; }
static long __attribute__((noinline)) op_mul(long a) { return a * 5; }
static long __attribute__((noinline)) op_xor(long a) { return a ^ 0x55; }
static long __attribute__((noinline)) op_shr(long a) { return a >> 1; }

static void indirect(long n)
{
	static long (*const ops[4])(long) = { op_add, op_mul, op_xor, op_shr };
	long v = 1;

	for (long i = 0; i < n; i++)
		v = ops[(i ^ (i >> 3)) & 3](v) & 0xffffff;
	sink = v;
}

static void *worker(void *arg)
{
	volatile long own = 0;

	loop((long)arg, &own);
	sink = own;
	return NULL;
}

static void threads(long n, int nt)
{
	pthread_t t[8];

	for (int i = 0; i < nt; i++)
		pthread_create(&t[i], NULL, worker, (void *)(n / nt));
	for (int i = 0; i < nt; i++)
		pthread_join(t[i], NULL);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "loop";
	long n = argc > 2 ? atol(argv[2]) : 1;
	int nt = argc > 3 ? atoi(argv[3]) : 4;
	double w0, c0, w1, c1;

	if (nt < 1 || nt > 8)
		return 2;
	bench_begin();
	w0 = now(CLOCK_MONOTONIC);
	c0 = now(CLOCK_PROCESS_CPUTIME_ID);
	if (!strcmp(mode, "loop"))
		loop(n, &sink);
	else if (!strcmp(mode, "fib"))
		sink = fib((int)n);
	else if (!strcmp(mode, "indirect"))
		indirect(n);
	else if (!strcmp(mode, "threads"))
		threads(n, nt);
	else
		return 2;
	c1 = now(CLOCK_PROCESS_CPUTIME_ID);
	w1 = now(CLOCK_MONOTONIC);
	bench_end();
	fprintf(stderr, "region %.6f %.6f\n", w1 - w0, c1 - c0);
	return 0;
}
