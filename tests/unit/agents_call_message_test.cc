// An agent's call written as an assistant message reads back as the same call (SPEC 13.5).
#include <gtest/gtest.h>

#include "agents/call_message.h"
#include "core/tool_table.h"
#include "parse/parser.h"

namespace toolhost::agents {
namespace {

struct ReadBack {
  std::vector<parse::ToolCall> calls;
  std::vector<parse::ParseError> errors;
  int block_row = 0;
};

ReadBack read_back(const std::string& tool, const mcp::Json& arguments) {
  core::Config config;
  std::vector<std::string> lines = {agent_buffer_intro("claude-code", config.roles)};
  CallMessage message = call_message("claude-code", tool, arguments, config.roles);
  ReadBack back;
  back.block_row = static_cast<int>(lines.size()) + message.block_offset;
  lines.insert(lines.end(), message.lines.begin(), message.lines.end());
  parse::Options options;
  options.tools = core::tool_table_for(config);
  options.roles = config.roles;
  options.complete = true;
  parse::ParseResult parsed = parse::parse(lines, options);
  back.calls = parsed.calls;
  back.errors = parsed.errors;
  return back;
}

TEST(AgentCallMessage, APlainCommandIsTheSidekickBashForm) {
  CallMessage message = call_message("codex", "run_terminal_command", {{"command", "ls -la"}}, {});
  EXPECT_NE(std::find(message.lines.begin(), message.lines.end(), "**bash**"), message.lines.end());
  EXPECT_EQ(message.summary, "ls -la");
  ReadBack back = read_back("run_terminal_command", {{"command", "ls -la"}});
  ASSERT_EQ(back.calls.size(), 1u);
  EXPECT_EQ(back.calls[0].tool, "run_terminal_command");
  EXPECT_EQ(back.calls[0].params["command"], "ls -la");
  EXPECT_EQ(back.calls[0].start, back.block_row);
}

TEST(AgentCallMessage, AMultiLineCommandWithFencesInsideReadsBackWhole) {
  std::string command = "cat <<'EOF'\n```\ninside\n```\nEOF";
  ReadBack back = read_back("run_terminal_command", {{"command", command}});
  ASSERT_EQ(back.calls.size(), 1u) << (back.errors.empty() ? "" : back.errors[0].message);
  EXPECT_EQ(back.calls[0].params["command"], command);
  EXPECT_EQ(back.calls[0].start, back.block_row);
}

TEST(AgentCallMessage, OtherToolsAndOptionsAreAJsonFence) {
  mcp::Json arguments = {{"command", "make"}, {"cwd", "src"}, {"timeout_ms", 5000}};
  ReadBack back = read_back("run_terminal_command", arguments);
  ASSERT_EQ(back.calls.size(), 1u);
  EXPECT_EQ(back.calls[0].params["cwd"], "src");
  EXPECT_EQ(back.calls[0].start, back.block_row);

  mcp::Json edit = {{"path", "a.md"},
                    {"search", mcp::Json::array({"x"})},
                    {"replace", mcp::Json::array({"```\nnew\n```"})}};
  back = read_back("replace_in_file", edit);
  ASSERT_EQ(back.calls.size(), 1u) << (back.errors.empty() ? "" : back.errors[0].message);
  EXPECT_EQ(back.calls[0].tool, "replace_in_file");
  EXPECT_EQ(back.calls[0].params["replace"], edit["replace"]);
  EXPECT_EQ(back.calls[0].start, back.block_row);
}

TEST(AgentCallMessage, TheSummaryNamesTheToolAndItsPath) {
  EXPECT_EQ(call_message("a", "delete_file", {{"path", "x.txt"}}, {}).summary, "delete_file x.txt");
}

TEST(AgentCallMessage, AClientNameCannotBreakABufferNameOrALine) {
  EXPECT_EQ(client_label("claude-code"), "claude-code");
  EXPECT_EQ(client_label("../x\ny"), ".._x_y");
  EXPECT_EQ(client_label(""), "agent");
  EXPECT_EQ(client_label(std::string(200, 'a')).size(), 64u);
}

}  // namespace
}  // namespace toolhost::agents
