/* cache_remap.c: fixture for tests/engine_test.py.  Between oracle_begin
 * and oracle_mid it grows a data region with mremap (MREMAP_MAYMOVE, as
 * realloc does) 8 times, running the same loop in between: no code moves,
 * so the cache engine keeps every block it translated.  Then it changes
 * the protection of its own code's page 3 times (the same protection:
 * each flushes the cache all the same, its code may have changed) and
 * runs the loop again after each, and goes on to its exit.  Exits 0 when
 * the data survived the moves. */
#define _GNU_SOURCE
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

volatile long sum;

void oracle_begin(void) { __asm__ volatile("" ::: "memory"); }
void oracle_mid(void) { __asm__ volatile("" ::: "memory"); }

static void work(int n)
{
	for (int i = 0; i < n; i++)
		sum += i % 7 ? i : -i;
}

int main(void)
{
	size_t len = 1 << 16;
	uintptr_t page = (uintptr_t)work & ~(uintptr_t)4095;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return 3;
	oracle_begin();
	for (int k = 0; k < 8; k++) {
		work(500);
		p[len - 1] = (char)k;
		p = mremap(p, len, 2 * len, MREMAP_MAYMOVE);
		if (p == MAP_FAILED)
			return 4;
		len *= 2;
	}
	work(500);
	oracle_mid();
	for (int k = 0; k < 3; k++) {
		if (mprotect((void *)page, 4096, PROT_READ | PROT_EXEC) < 0)
			return 5;
		work(500);
	}
	return p[len / 2 - 1] == 7 ? 0 : 1;
}
