/* rel_spin.c: fixture for tests/process_test.py: runs until killed,
 * calling work() in a loop; never_called() is where a test plants a
 * breakpoint that must be gone after ptdb detaches. */
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
	(void)argv;
	for (;;) {
		work();
		if (argc > 5)
			never_called();
		usleep(1000);
	}
}
