/* Fixture for function calls in expressions (p add(2, 3)): functions of
 * the program with integer and pointer arguments, one that crashes. */
#include <stddef.h>

static int counter;

int add(int a, int b)
{
	return a + b;
}

long scale(long x, long k)
{
	counter++;
	return x * k;
}

size_t mylen(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

int deref(int *p)
{
	return *p;
}

const char *greeting(void)
{
	return "hello";
}

int main(void)
{
	const char *word = "fixture";
	int x = add(1, 2);

	x += (int)scale(x, 2) + (int)mylen(word) + deref(&x) + (greeting()[0] == 'h');
	return x + counter;
}

/* variadic: its type prints "int (*)(const char *, ...)" (after main:
 * the functions above keep their addresses) */
int say(const char *fmt, ...)
{
	return fmt[0];
}
