// The e2e harness, told by GoogleTest whether the test failed (nvim_harness.h: test_failed),
// and the whole binary skipped, with the reason, when the Neovim version it was registered for
// could not be fetched (tests/CMakeLists.txt sets TOOLHOST_TEST_NVIM_UNAVAILABLE).
#include <gtest/gtest.h>

#include <cstdlib>

#include "e2e/nvim_harness.h"

namespace toolhost::e2e {
namespace {

// Before main(): test_failed is a plain pointer, constant-initialized, so no order issue.
const bool kHarnessHookedToGTest = [] {
  NvimHarness::test_failed = [] { return ::testing::Test::HasFailure(); };
  return true;
}();

class NvimVersionAvailable : public ::testing::Environment {
 public:
  void SetUp() override {
    const char* why = std::getenv("TOOLHOST_TEST_NVIM_UNAVAILABLE");
    if (why && *why) GTEST_SKIP() << why;
  }
};

const auto* const kNvimVersionAvailable =
    ::testing::AddGlobalTestEnvironment(new NvimVersionAvailable);

}  // namespace
}  // namespace toolhost::e2e
