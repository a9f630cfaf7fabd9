// tests/programs/cxx_names.cpp: C++ names as lldb-16 prints them
// (tests/lldb_compare_test.py): a const method of a class in an anonymous
// namespace (GCC gives it no linkage name in DWARF), a function in nested
// namespaces, and 's' stepping over the standard library's functions
// (target.process.thread.step-avoid-regexp, ^std:: by default); and the
// standard library's strings and vectors as lldb-16's formatters show them.
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace {
struct Runner {
	std::vector<int> v;
	int run(int k) const;
};

__attribute__((noinline)) int Runner::run(int k) const
{
	std::pair<int, int> p = std::make_pair(k, k + 1);
	int s = p.first + p.second;

	for (int x : v)
		s += x;
	return s;
}
}

namespace outer {
namespace inner {
__attribute__((noinline)) int twice(const char *s, int n)
{
	return s[0] * n;
}
}
}

__attribute__((noinline)) int use(const std::string &name, std::vector<int> v, std::string s2)
{
	std::vector<std::string> names = { "a", "bb" };
	std::vector<double> none;

	printf("%s %zu %s %zu\n", name.c_str(), v.size(), s2.c_str(), names.size() + none.size());
	return (int)name.size();
}

// overloaded functions of a namespace, static ones (no linkage name in
// DWARF) and a function template's instance, defined after main: their
// breakpoint locations in lldb-16's order and their names
namespace outer {
int pick(int a);
int pick(double a);
int pick(char a);
static int grab(int a);
static int grab(long a);
template <typename T> static int grab(T *p);
}

int main(int argc, char **argv)
{
	Runner r;

	r.v.push_back(argc);
	int t = outer::inner::twice(argv[0], argc);
	t += outer::pick(1) + outer::pick(2.0) + outer::pick('c');
	t += outer::grab(1) + outer::grab(2L) + outer::grab(&t);
	printf("%d\n", r.run(t));
	return use("hello", std::vector<int>{ 1, 2, 3 }, std::string(40, 'x'));
}

namespace outer {
__attribute__((noinline)) int pick(int a)
{
	return a + 1;
}
__attribute__((noinline)) int pick(double a)
{
	return (int)a + 2;
}
__attribute__((noinline)) int pick(char a)
{
	return a + 3;
}
__attribute__((noinline)) static int grab(int a)
{
	return a;
}
__attribute__((noinline)) static int grab(long a)
{
	return (int)a;
}
template <typename T> __attribute__((noinline)) static int grab(T *p)
{
	return p ? 1 : 0;
}
}
