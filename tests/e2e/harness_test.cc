// The harness itself (issue #28): a request that timed out leaves nothing behind that its
// late answer could write into; its callback pointed at the test's stack.
#include <gtest/gtest.h>

#include <stdexcept>

#include "e2e/nvim_harness.h"

namespace toolhost::e2e {
namespace {

using nlohmann::json;

TEST(NvimHarnessRequests, AnswerThatComesAfterTheDeadlineIsNotTheNextRequestsAnswer) {
  NvimHarness nvim;
  // Neovim answers after a second; the test gives up after a tenth of it.
  EXPECT_THROW(
      nvim.lua("vim.wait(1000) return 'late'", json::array(), std::chrono::milliseconds(100)),
      std::runtime_error);
  // The late answer comes while these wait: each gets its own.
  EXPECT_EQ(nvim.lua("return 'second'"), "second");
  EXPECT_EQ(nvim.lua("return 'third'"), "third");
}

}  // namespace
}  // namespace toolhost::e2e
