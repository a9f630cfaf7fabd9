/* Fixture (built -O2, PIE): a recursive function whose recursive call
 * returns to the first address of line 9, where a breakpoint by line
 * sits: plans (finish, 'n') whose return is a breakpoint's place. */
static volatile int sink;

__attribute__((noipa)) int rec(int n)
{
	int r;
	if (n == 0)
		return 0;
	r = rec(n - 1);
	sink += r;
	return r + 1;
}

int main(void)
{
	int a = rec(4);

	sink = a;
	return a == 4 ? 0 : 1;
}
