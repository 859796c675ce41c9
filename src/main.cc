#include <iostream>

int main() {
  std::cout << "toolhost " TOOLHOST_VERSION "\n";
  return 0;
}
