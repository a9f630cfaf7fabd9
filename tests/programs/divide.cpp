#include <iostream>
int divide(int a, int b) {
  return a / b;
}
int main() {
  int x;
  std::cin >> x;
  std::cout << divide(12, x) << std::endl;
  return 0;
}
