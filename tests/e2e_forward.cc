// The sanitizer build's toolhost_e2e_tests (tests/CMakeLists.txt, TOOLHOST_E2E_TESTS_FROM): runs
// the normal build's end-to-end tests, with the same arguments, against this build's toolhost.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

int main(int, char** argv) {
  ::setenv("TOOLHOST_TEST_HOST", TOOLHOST_BINARY, 1);
  ::execv(TOOLHOST_E2E_TESTS_FROM, argv);
  std::fprintf(stderr, "toolhost_e2e_tests: cannot run %s: %s (the normal test build has it: "
               "make test-build)\n", TOOLHOST_E2E_TESTS_FROM, std::strerror(errno));
  return 1;
}
