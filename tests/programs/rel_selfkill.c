/* rel_selfkill.c: fixture for tests/process_test.py: loops a while (so a
 * trace has something in it), then SIGKILLs itself. */
#include <signal.h>
#include <unistd.h>

volatile int sum;

int main(void)
{
	for (int i = 0; i < 2000; i++)
		sum += i;
	kill(getpid(), SIGKILL);
	return 0;
}
