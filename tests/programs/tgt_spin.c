/* tgt_spin.c: fixture for test-target: spins until killed. */
int main(void)
{
	volatile unsigned long n = 0;

	for (;;)
		n++;
}
