/* rel_exec.c: fixture for tests/process_test.py: loops a while, then
 * execs argv[1] (another fixture program). */
#include <unistd.h>

volatile int sum;

int main(int argc, char **argv)
{
	for (int i = 0; i < 2000; i++)
		sum += i;
	if (argc > 1)
		execv(argv[1], argv + 1);
	return 9;
}
