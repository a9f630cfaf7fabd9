/* tests/programs/cxxsym.cpp: C++ names as LLDB finds them — a destructor
 * and constructor in a namespace (b ns::Rect::~Rect), overloads (ns::over),
 * templates (ns::twice<int>, ns::twice<double>) — and a thread created by
 * std::thread (bt of the new thread down to clone3). */
#include <cstdio>
#include <thread>

namespace ns {
struct Rect {
	int w, h;
	Rect(int w_, int h_) : w(w_), h(h_) {}
	~Rect() { std::printf("~Rect %d\n", w * h); }
	int area() const { return w * h; }
};
template <typename T> T twice(T v) { return v + v; }
int over(int x) { return x + 1; }
double over(double x) { return x * 2; }
}

static void worker(int n)
{
	ns::Rect r(n, 2);

	std::printf("%d\n", r.area() + ns::twice(n));
}

int main()
{
	ns::Rect a(3, 4);
	std::thread t(worker, 5);

	t.join();
	std::printf("%d %g %g\n", ns::over(1), ns::over(2.0), ns::twice(1.5));
	return a.area() == 12 ? 0 : 1;
}
