/* tests/programs/step_nodebug.c: built without -g (see the Makefile) for
 * tests/step_o2_test.py: in a frame without line information lldb-16's
 * 's' steps one instruction into calls, 'n' one over them. */
__attribute__((noinline)) int leaf(int x)
{
	return x * 3 + 1;
}

__attribute__((noinline)) int mid(int x)
{
	return leaf(x) + leaf(x + 1);
}

int main(int argc, char **argv)
{
	(void)argv;
	return mid(argc) & 1;
}
