// Fixture for globals named with their scope in expressions
// ("app::flags::level", "::app::name"), a class's static member, an
// anonymous namespace's global, and calls through a cast function
// pointer ("((int(*)(int))twice)(3)").
#include <string>

namespace app {
int level = 3;
std::string name = "tool";
namespace flags {
bool verbose = true;
long limit = 1000;
}  // namespace flags
struct Counter {
	static int made;
	int id;
};
int Counter::made = 2;
}  // namespace app

namespace {
int hidden = 7;
}

int level = 11;	// the top's own, beside app::level

int twice(int n)
{
	return 2 * n;
}

long add3(long a, long b, long c)
{
	return a + b + c;
}

int main()
{
	app::Counter c = {5};
	int (*fp)(int) = twice;
	void *raw = (void *)twice;

	return twice(app::level) + (int)app::name.size() + app::flags::verbose + hidden + level +
	       c.id + app::Counter::made + fp(1) + (raw != nullptr) + (int)add3(1, 2, 3);
}
