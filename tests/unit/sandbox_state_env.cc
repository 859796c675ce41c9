// The policy's view of the kernel sandbox, for the whole unit-test binary: unavailable, so that
// the policy and CLI tests see the allow-list rule they were written for, whatever this kernel
// offers. The tests of the sandboxed policy set it themselves (policy_sandbox_test.cc); the
// sandbox's own tests probe the kernel directly.
#include <gtest/gtest.h>

#include "tools/policy.h"

namespace toolhost::tools {
namespace {

class PolicySeesNoSandbox : public ::testing::Environment {
 public:
  void SetUp() override { set_sandbox_state({false, "the unit tests' default"}); }
};

const auto* const kPolicySeesNoSandbox =
    ::testing::AddGlobalTestEnvironment(new PolicySeesNoSandbox);

}  // namespace
}  // namespace toolhost::tools
