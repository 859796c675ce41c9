// The e2e harness, told by GoogleTest whether the test failed (nvim_harness.h: test_failed).
#include <gtest/gtest.h>

#include "e2e/nvim_harness.h"

namespace toolhost::e2e {
namespace {

// Before main(): test_failed is a plain pointer, constant-initialized, so no order issue.
const bool kHarnessHookedToGTest = [] {
  NvimHarness::test_failed = [] { return ::testing::Test::HasFailure(); };
  return true;
}();

}  // namespace
}  // namespace toolhost::e2e
