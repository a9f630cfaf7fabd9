// Fixture: breakpoints by name in -O2 C++ as lldb-16 places them (built
// -O2 -fPIE): a member function whose first line entry lies in an inlined
// call (Runner::run), a destructor whose prologue ends at an entry of
// merged rows (~Runner), inlined copies in a function of one range
// (caller: counted, one of them of no code) and in one of several ranges
// (main, split into a hot and a .cold part for its exception cleanup:
// not counted).
#include <cstdio>
#include <string>
#include <vector>

struct Runner {
	std::vector<std::string> names;
	int total = 0;
	int run(int k);
	~Runner();
};

Runner::~Runner() {}

__attribute__((noinline)) static int weigh(const std::string &s) { return (int)s.size(); }

int Runner::run(int k)
{
	std::string tmp = "job";
	for (const auto &n : names)
		total += weigh(n) * k + (int)tmp.size();
	return total;
}

int twice(int a) { return a * 2 + 1; }
int (*twice_p)(int) = twice;

struct S {
	int v;
	int add(int k) { return v + k * 7; }
};
int (S::*add_p)(int) = &S::add;

__attribute__((noinline)) int caller(int x)
{
	S s{x};
	return twice(x) + s.add(x) + (s.*add_p)(2) + twice(x + 1) * 3;
}

int main(int argc, char **argv)
{
	Runner r;
	r.names.push_back("alpha");
	r.names.push_back(argv[0]);
	int t = r.run(argc) + caller(argc) + twice_p(argc);
	t += r.run(2);
	printf("%d\n", t);
	return 0;
}
