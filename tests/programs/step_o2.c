/* tests/programs/step_o2.c: built -g -O2 -fPIE -pie (see the Makefile) for
 * tests/step_o2_test.py, which steps through it in lldb-16 and ptdb.  GCC
 * gives it the line table of optimized code: several rows at one address
 * (the last without is_stmt), lines interleaved and revisited, calls
 * inlined (buf_put and grow, whose ranges start where a step stops), rows
 * of line 0, and calls through the PLT into libc (lines from libc6-dbg). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct buf {
	char *data;
	size_t len, cap;
};

static inline size_t grow(size_t need)
{
	size_t cap = 16;

	while (cap < need)
		cap *= 2;
	return cap;
}

static inline void buf_put(struct buf *b, const char *s, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = grow(b->len + n);
		b->data = realloc(b->data, b->cap);
	}
	memcpy(b->data + b->len, s, n);
	b->len += n;
}

__attribute__((noinline)) static unsigned checksum(const char *p, size_t n)
{
	unsigned h = 5381;

	for (size_t i = 0; i < n; i++)
		h = h * 33 + (unsigned char)p[i];
	return h;
}

__attribute__((noinline)) int process(int argc, char **argv)
{
	struct buf b = { 0 };
	unsigned total = 0;

	for (int i = 1; i < argc; i++) {
		size_t n = strlen(argv[i]);

		buf_put(&b, argv[i], n);
		total += checksum(argv[i], n);
		if (total % 7 == 3)
			total ^= 0x55;
	}
	unsigned all = checksum(b.data, b.len);

	printf("%u %u %zu\n", total, all, b.len);
	free(b.data);
	return (int)(total + all);
}

int main(int argc, char **argv)
{
	return process(argc, argv) & 1;
}
