/* Fixture for lldb-16's spellings in C data: restrict-qualified pointers
 * ("char *__restrict"), frame variable's paths with an address-of
 * ("&buf[2]" shown as "&[2]") and through a null pointer, sizeof of a
 * function (refused), and an address breakpoint in no module. */
#include <stddef.h>

struct rec {
	int id;
	char *name;
	struct rec *next;
};

__attribute__((noinline)) int fill(char *restrict dst, const char *restrict src, int n)
{
	char *restrict end = dst + n;
	int k = 0;

	while (dst < end && src[k]) {
		dst[k] = src[k];
		k++;
	}
	return k;
}

int main(void)
{
	char buf[8] = "abcdefg";
	struct rec r = {7, NULL, NULL};
	struct rec *rp = &r;

	return fill(buf, "xy", 2) + rp->id - 9;
}
