#include <gtest/gtest.h>

#include "parse/print.h"
#include "parse_test_util.h"

namespace toolhost::parse {
namespace {

TEST(ParsePrint, JsonHasTheSchemaOfSpec32) {
  auto r = testing::parse_text(
      "USER: x\nASSISTANT: go\n**bash**\n```\nls\n```\n"
      "````result id=th-7 tool=run_terminal_command status=succeeded exit=0 "
      "duration=0.01s\n````\n");
  nlohmann::json out = to_json(r);
  EXPECT_EQ(out["messages"][1], (nlohmann::json{{"role", "assistant"}, {"start", 1}, {"end", 8}}));
  const nlohmann::json& call = out["calls"][0];
  EXPECT_EQ(call["id"], r.calls[0].id);
  EXPECT_EQ(call["tool"], "run_terminal_command");
  EXPECT_EQ(call["params"], (nlohmann::json{{"command", "ls"}}));
  EXPECT_EQ(call["dialect"], "sidekick");
  EXPECT_EQ(call["start"], 2);
  EXPECT_EQ(call["end"], 6);
  EXPECT_EQ(call["status"], "succeeded");
  EXPECT_EQ(call["result"],
            (nlohmann::json{{"start", 6}, {"end", 8}, {"id", "th-7"}, {"status", "succeeded"}}));
  EXPECT_TRUE(out["errors"].empty());
}

TEST(ParsePrint, TextUsesOneBasedLines) {
  auto r = testing::parse_text(
      "ASSISTANT: go\n**Read:** `a`\n```json\n{\"tool\": \"x\", \"parameters\": {}}\n```\n");
  std::string text = to_text(r);
  EXPECT_NE(text.find("message assistant lines 1-5"), std::string::npos) << text;
  EXPECT_NE(text.find("read_file (sidekick) lines 2 pending"), std::string::npos) << text;
  EXPECT_NE(text.find("error lines 3-5: line 4: unknown tool `x`"), std::string::npos) << text;
  EXPECT_EQ(
      to_json(r.errors[0]),
      (nlohmann::json{{"start", 2}, {"end", 5}, {"line", 3}, {"message", "unknown tool `x`"}}));
}

}  // namespace
}  // namespace toolhost::parse
