// Fixture: pointers to members (DW_TAG_ptr_to_member_type): to data, to
// a member function, a virtual one, a const one, null ones, in a struct,
// behind a typedef, as parameters.
struct Foo {
	int x;
	int y;
	void bar(int v) { x = v; }
	virtual void vbar(int v) { y = v; }
	int get() const { return x; }
};

struct Holder {
	int Foo::*pm;
	void (Foo::*pmf)(int);
	int n;
};

typedef int Foo::*IntMember;

int use(Foo &f, int Foo::*pm, void (Foo::*pmf)(int), IntMember im)
{
	(f.*pmf)(2);
	return f.*pm + f.*im;
}

int main()
{
	Foo f{};
	Holder h{&Foo::y, &Foo::bar, 3};
	IntMember im = &Foo::x;
	int Foo::*pnull = nullptr;
	void (Foo::*pvf)(int) = &Foo::vbar;
	int (Foo::*pcf)() const = &Foo::get;
	void (Foo::*pfnull)(int) = nullptr;

	return use(f, h.pm, h.pmf, im) + use(f, h.pm, pvf, im) + (f.*pcf)() + (pnull ? 1 : 0) +
	       (pfnull ? 1 : 0);
}
