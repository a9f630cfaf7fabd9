// Fixture for C++ type names as lldb-16 prints them: class templates by
// their template arguments as clang prints them (const int, char *,
// enumerators, true, 'c', packs), inline namespaces left out
// (std::__cxx11::list is std::list) except in raw output, unnamed
// members' unions as "(anonymous union)" after their scope.
#include <list>
#include <string>
#include <tuple>
#include <utility>

namespace ns {
enum Mode { Slow, Fast };
enum class Kind : short { A = -1, B = 2 };
struct S {
	int k;
	union {
		int a;
		float f;
	};
	struct {
		int x;
	} named;
};
template <typename T, Mode M, bool B, char C, Kind K> struct Box {
	T val;
	struct Inner {
		T in;
	} inner;
};
}  // namespace ns

template <typename... Ts> struct Pack {
	int n;
};

int use(ns::S &s)
{
	return s.k + s.a;
}

int main()
{
	ns::S s{};
	ns::Box<const char *, ns::Fast, true, 'z', ns::Kind::B> box{"hi", {"in"}};
	std::list<int> l = {1, 2};
	std::pair<const int, char *> pr{1, nullptr};
	std::tuple<int, double> tu{1, 2.5};
	Pack<int, std::string> pk{2};
	Pack<> empty{0};
	std::string str = "text";
	s.k = 1;
	return use(s) + (int)l.size() + pr.first + std::get<0>(tu) + pk.n + empty.n + box.val[0] +
	       (int)str.size();
}
