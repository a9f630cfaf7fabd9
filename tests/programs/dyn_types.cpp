// Fixture: dynamic types (lldb-16's default, found by the vtable): base
// pointers and references to derived objects, a second base at an offset
// (the object's start is shown), const and typedefs of the declared type,
// a void * to an object, members that are such pointers and references,
// an object whose class is its declared one, a class without a vtable;
// references to small flat objects (one line), to an empty class, to a
// char *.
#include <cstdio>

namespace ns {
struct Base {
	virtual ~Base() {}
	virtual int f() { return 1; }
	int b = 1;
};
struct Derived : Base {
	int f() override { return 2; }
	int d = 2;
};
}  // namespace ns

struct Other {
	virtual int g() { return 3; }
	int o = 3;
};
struct Multi : Other, ns::Base {
	int m = 4;
};
struct Holder {
	ns::Base *ptr;
	ns::Base &ref;
	int n;
};
struct Plain {
	int x;
};
typedef ns::Base *BasePtr;

__attribute__((noinline)) int take(ns::Base *p, ns::Base &r, BasePtr t)
{
	return p->f() + r.f() + t->b;
}

struct Empty {
};

__attribute__((noinline)) int refs(int (&a)[3], Plain &pl, Empty &em, const char *&s, Plain &&rv)
{
	return a[0] + pl.x + (&em ? 1 : 0) + (s ? 1 : 0) + rv.x;
}

int main()
{
	ns::Derived dd;
	ns::Base bb;
	Multi mm;
	ns::Base *p = &dd;
	ns::Base &r = dd;
	ns::Base *q = &bb;
	ns::Base *pm = &mm;
	Other *po = &mm;
	ns::Base *pn = nullptr;
	const ns::Base *cp = &dd;
	const ns::Base &cb = bb;
	Holder h{ &dd, dd, 1 };
	Plain pl{ 5 };
	Plain *pp = &pl;
	void *vp = &dd;
	int n = take(pm, *pm, pm) + take(q, bb, p) + cb.b;
	int a3[3] = { 1, 2, 3 };
	Empty em;
	const char *s = "str";

	n += refs(a3, pl, em, s, Plain{ 9 });

	std::printf("%d %d %d %d %d %d\n", n, r.b, po->o, pn ? 1 : 0, cp->b + h.n + pp->x,
		    vp ? 1 : 0);
	return 0;
}
