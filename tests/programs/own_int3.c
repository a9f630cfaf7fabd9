/* Fixture: the program's own int3 (no __builtin_trap): a stop with
 * SIGTRAP, and a breakpoint on it that continue and si step over. */
#include <stdio.h>
int count;
int main(void)
{
	for (int i = 0; i < 4; i++) {
		count++;
		__asm__ volatile("int3");
		count += 10;
	}
	printf("count=%d\n", count);
	return count;
}
