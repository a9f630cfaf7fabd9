/* tgt_fpe.c: fixture for test-target: integer division by zero. */
int main(int argc, char **argv)
{
	volatile int zero = argc - 1;

	(void)argv;
	return 10 / zero;
}
