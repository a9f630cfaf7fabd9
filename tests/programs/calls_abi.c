/* Fixture for function calls with floating-point and struct arguments and
 * results (SysV classification: SSE registers, structs in one or two
 * registers, structs in memory, returned through a hidden pointer). */
#include <math.h>

struct point { int x, y; };		/* INTEGER: one register */
struct vec2 { double x, y; };		/* SSE, SSE: xmm0, xmm1 */
struct mixed { long n; double d; };	/* INTEGER, SSE */
struct fpair { float a, b; };		/* one SSE eightbyte */
struct big { long a, b, c; };		/* MEMORY: on the stack, returned through rdi */

struct point make_point(int x, int y)
{
	struct point p = { x, y };

	return p;
}

double norm(struct point p)
{
	return sqrt((double)p.x * p.x + (double)p.y * p.y);
}

struct vec2 scale2(struct vec2 v, double k)
{
	struct vec2 r = { v.x * k, v.y * k };

	return r;
}

struct mixed mix(long n, double d)
{
	struct mixed m = { n * 2, d / 2 };

	return m;
}

float fsum(struct fpair p, float c)
{
	return p.a + p.b + c;
}

struct big make_big(long a)
{
	struct big b = { a, a + 1, a + 2 };

	return b;
}

long big_sum(struct big b, int k)
{
	return (b.a + b.b + b.c) * k;
}

double many(double a, int i, double b, float c, long j, double d)
{
	return a + i + b + c + j + d;
}

/* more arguments than registers: the rest on the stack */
long sum8(long a, long b, long c, long d, long e, long f, long g, long h)
{
	return a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f + 7 * g + 8 * h;
}

double dsum9(double a, double b, double c, double d, double e, double f, double g,
	     double h, double i)
{
	return a + b + c + d + e + f + g + h + 10 * i;
}

/* a struct that no longer fits in the registers left goes on the stack */
double after6(long a, long b, long c, long d, long e, struct mixed m)
{
	return (double)(a + b + c + d + e + m.n) + m.d;
}

static int calls;

/* an unnamed parameter: shown as lldb-16 shows it, and counted in a call */
double wsum(int a, double, int c)
{
	return a + c;
}

void bump(int by)
{
	calls += by;
}

/* no DWARF: a cast says what it returns, as in LLDB */
__asm__(".globl twice_d\n.type twice_d, @function\ntwice_d:\n\taddsd %xmm0, %xmm0\n"
	"\tret\n.size twice_d, .-twice_d\n");
double twice_d(double);

int main(void)
{
	struct point pt = make_point(3, 4);
	struct vec2 v = { 1.5, -2.0 };
	struct fpair fp = { 0.25f, 0.5f };
	struct big bg = make_big(10);
	double h = hypot(3.0, 4.0);

	v = scale2(v, 2.0);
	h += norm(pt) + mix(1, 3.0).d + fsum(fp, 1.0f) + (double)big_sum(bg, 2) + many(1, 2, 3, 4, 5, 6);
	h += (double)sum8(1, 2, 3, 4, 5, 6, 7, 8) + dsum9(1, 2, 3, 4, 5, 6, 7, 8, 9) +
	     after6(1, 2, 3, 4, 5, mix(1, 1.0)) + twice_d(1.0);
	bump(1);
	h += wsum(1, 2.5, 3);
	return (int)h + calls;
}
