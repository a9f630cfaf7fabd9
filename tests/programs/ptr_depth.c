/* Fixture for frame variable -P (pointers expanded along each path, as
 * LLDB's ptr-depth): a list node pointing to another and to a struct, a
 * pointer to an int and a C string. */
struct pt {
	int x, y;
};

struct node {
	int v;
	struct node *next;
	struct pt *p;
};

int main(void)
{
	struct pt a = {1, 2};
	struct node n2 = {2, 0, &a};
	struct node n1 = {1, &n2, &a};
	struct node *np = &n1;
	struct pt *pp = &a;
	int i = 5, *ip = &i;
	const char *s = "hi";

	return np->v + pp->x + *ip + s[0];
}
