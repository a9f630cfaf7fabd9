// Fixture for the C++ standard library's values as LLDB shows them:
// std::string, vector, map, set, unordered_map, list, unique_ptr,
// shared_ptr, weak_ptr, unordered_map, pair, array, deque, forward_list,
// optional, bitset, multimap, atomic; a std::string and a
// std::vector returned (finish), library values as arguments (frame lines).
#include <array>
#include <atomic>
#include <bitset>
#include <deque>
#include <forward_list>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

struct point {
	int x, y;
};

static int consume(const std::string &name, const std::vector<int> &v, std::string err)
{
	return (int)(name.size() + v.size() + err.size());
}

static std::vector<int> make_v(int n)
{
	std::vector<int> r;

	for (int i = 0; i < n; i++)
		r.push_back(i * 10);
	return r;
}

static std::string greet(const std::string &who)
{
	return std::string("hi ") + who;
}

int main()
{
	std::string s = "hello";
	std::string empty;
	std::vector<int> v = {1, 2, 3};
	std::vector<int> ev;
	std::vector<std::string> names = {"ab", "cd"};
	std::vector<point> pts = {{1, 2}, {3, 4}};
	std::map<int, std::string> m = {{1, "one"}, {2, "two"}};
	std::set<int> st = {5, 3, 9};
	std::list<int> l = {7, 8};
	std::unique_ptr<int> up(new int(42));
	std::unique_ptr<point> upp(new point{5, 6});
	std::unique_ptr<int> unull;
	std::shared_ptr<int> sp = std::make_shared<int>(7);
	std::shared_ptr<int> sp2 = sp;
	std::weak_ptr<int> wp = sp;
	std::pair<int, double> pr = {1, 2.5};
	std::array<int, 3> ar = {4, 5, 6};
	std::unordered_map<int, int> um = {{1, 10}};
	std::deque<int> dq = {1, 2, 3};
	std::forward_list<int> fl = {4, 5};
	std::optional<int> op = 3;
	std::optional<int> none;
	std::bitset<8> bs(5);
	std::atomic<int> at(9);
	std::multimap<int, int> mm = {{1, 2}, {1, 3}};
	std::vector<int> made = make_v(2);
	std::string g = greet("bob");
	int r = consume(s, v, empty) + (int)made.size() + (int)g.size() + um[1] + dq[0] + fl.front() + *op +
		(none ? 1 : 0) + (int)bs.count() + at + (int)mm.size();
	return r + (int)m.size() + (int)st.size() + (int)l.size() + *up + upp->x + *sp +
	       (int)sp2.use_count() + pr.first + ar[0] + (unull ? 1 : 0) + (int)wp.expired() +
	       (int)names.size() + pts[0].x + (int)ev.size();
}
