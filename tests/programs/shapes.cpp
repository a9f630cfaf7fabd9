// shapes.cpp: classes with a base, references, std::string members.
#include <cstdio>
#include <string>

namespace geo {
struct Point {
  int x, y;
};

class Shape {
public:
  Shape(const std::string &n) : name(n), id(++count) {}
  virtual ~Shape() {}
  virtual int area() const = 0;
  std::string name;
  int id;
  static int count;
};
int Shape::count = 0;

class Rect : public Shape {
public:
  Rect(const std::string &n, Point o, int w, int h) : Shape(n), origin(o), w(w), h(h) {}
  int area() const override { return w * h; }
  Point origin;
  int w, h;
};
}  // namespace geo

__attribute__((noinline)) int measure(const geo::Shape &s, int &total, bool big) {
  int a = s.area();
  total += a;
  return big ? a * 2 : a;
}

int main() {
  geo::Rect r("box", geo::Point{1, 2}, 3, 4);
  int total = 0;
  int &ref = total;
  std::string label = "hello";
  int m = measure(r, ref, false);
  std::printf("%d %d %s %s\n", m, total, r.name.c_str(), label.c_str());
  return 0;
}
