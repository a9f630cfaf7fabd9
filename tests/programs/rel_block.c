/* rel_block.c: fixture for tests/interrupt_test.py.  With no argument it
 * calls work() then blocks for good in read(2) on a pipe nobody writes;
 * with "spin" it calls work() in a loop and never makes a system call.
 * never_called() is where a test plants a breakpoint that must be gone
 * after ptdb detaches. */
#include <string.h>
#include <unistd.h>

volatile unsigned long counter;

void never_called(void)
{
	counter = 0;
}

void work(void)
{
	counter++;
}

int main(int argc, char **argv)
{
	int fd[2];
	char c;

	if (argc > 1 && !strcmp(argv[1], "spin"))
		for (;;) {
			work();
			if (argc > 5)
				never_called();
		}
	if (pipe(fd) < 0)
		return 1;
	for (;;) {
		work();
		if (argc > 5)
			never_called();
		if (read(fd[0], &c, 1) < 0)
			return 2;
	}
}
