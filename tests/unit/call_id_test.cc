#include "parse/call_id.h"

#include <gtest/gtest.h>

namespace toolhost::parse {
namespace {

TEST(CallId, Fnv1aMatchesReferenceVectors) {
  EXPECT_EQ(fnv1a64(""), 0xcbf29ce484222325ULL);
  EXPECT_EQ(fnv1a64("a"), 0xaf63dc4c8601ec8cULL);
  EXPECT_EQ(fnv1a64("foobar"), 0x85944171f73967e8ULL);
}

TEST(CallId, IgnoresPurposeAndCountsIdenticalCalls) {
  nlohmann::json a = {{"command", "make test"}, {"purpose", "run tests"}};
  nlohmann::json b = {{"command", "make test"}};
  EXPECT_EQ(call_id("run_terminal_command", a, 0), call_id("run_terminal_command", b, 0));
  EXPECT_NE(call_id("run_terminal_command", b, 0), call_id("run_terminal_command", b, 1));
  EXPECT_EQ(call_id("run_terminal_command", b, 0).size(), 12u);
}

}  // namespace
}  // namespace toolhost::parse
