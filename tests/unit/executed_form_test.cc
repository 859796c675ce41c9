// SPEC 10.1 executed forms: the llm-sidekick header becomes "✓ Executed: `cmd`" (or a ✗
// form), the `> purpose` lines stay, a one-line command's fence goes, a multi-line or
// backtick command keeps its fence under a bare header; file tools keep their fences.
// Fenced dialects (10.2, 10.3) keep the block as it is.
#include "results/executed_form.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/tool_table.h"
#include "parse/parser.h"
#include "results/result_block.h"

namespace toolhost::results {
namespace {

using Lines = std::vector<std::string>;
using jobs::Status;

parse::ToolCall call(const std::string& tool, nlohmann::json params,
                     parse::Dialect dialect = parse::Dialect::Sidekick) {
  parse::ToolCall c;
  c.tool = tool;
  c.params = std::move(params);
  c.dialect = dialect;
  return c;
}

parse::ToolCall terminal(const std::string& command) {
  return call("run_terminal_command", {{"command", command}, {"purpose", "run tests"}});
}

const Lines kBashBlock = {"**bash**", "```bash", "make test", "```", "> run tests"};

TEST(ExecutedForm, OneLineCommandMovesIntoTheHeaderAndItsFenceGoes) {
  EXPECT_EQ(executed_form(terminal("make test"), kBashBlock, Status::Succeeded),
            (Lines{"✓ Executed: `make test`", "> run tests"}));
}

TEST(ExecutedForm, EveryFailureStatusHasItsWord) {
  const parse::ToolCall c = terminal("make test");
  EXPECT_EQ(executed_form(c, kBashBlock, Status::Failed)[0], "✗ Failed: `make test`");
  EXPECT_EQ(executed_form(c, kBashBlock, Status::TimedOut)[0], "✗ Timed out: `make test`");
  EXPECT_EQ(executed_form(c, kBashBlock, Status::Canceled)[0], "✗ Canceled: `make test`");
  EXPECT_EQ(executed_form(c, kBashBlock, Status::Interrupted)[0], "✗ Interrupted: `make test`");
}

TEST(ExecutedForm, BlankLinesBetweenPartsAreDroppedPurposeLinesKept) {
  Lines block = {"**bash**", "", "```sh", "ls -la", "```", "", "> list files", "> second line"};
  EXPECT_EQ(executed_form(terminal("ls -la"), block, Status::Succeeded),
            (Lines{"✓ Executed: `ls -la`", "> list files", "> second line"}));
}

TEST(ExecutedForm, IndentedPurposeLinesAreKept) {
  Lines block = {"**bash**", "```bash", "make", "```", "  > indented two"};
  EXPECT_EQ(executed_form(terminal("make"), block, Status::Succeeded),
            (Lines{"✓ Executed: `make`", "  > indented two"}));
}

TEST(ExecutedForm, MultiLineCommandKeepsItsFenceUnderABareHeader) {
  Lines block = {"**bash**", "```bash", "cd src", "make", "```", "> build"};
  EXPECT_EQ(executed_form(terminal("cd src\nmake"), block, Status::Failed),
            (Lines{"✗ Failed:", "```bash", "cd src", "make", "```", "> build"}));
}

TEST(ExecutedForm, CommandWithABacktickKeepsItsFence) {
  Lines block = {"**bash**", "```bash", "echo `date`", "```"};
  EXPECT_EQ(executed_form(terminal("echo `date`"), block, Status::Succeeded),
            (Lines{"✓ Executed:", "```bash", "echo `date`", "```"}));
}

TEST(ExecutedForm, FenceClosesOnlyOnAMatchingFence) {
  // A 4-backtick fence holding ``` lines (a heredoc writing markdown) and a ~~~ fence
  // holding ``` lines: only a bare fence of the same character, as long or longer, closes.
  Lines block = {"**bash**", "````bash", "cat > README.md <<'EOF'", "```sh", "make", "```",
                 "EOF",      "````",     "> write the readme"};
  const std::string command = "cat > README.md <<'EOF'\n```sh\nmake\n```\nEOF";
  EXPECT_EQ(executed_form(terminal(command), block, Status::Succeeded),
            (Lines{"✓ Executed:", "````bash", "cat > README.md <<'EOF'", "```sh", "make", "```",
                   "EOF", "````", "> write the readme"}));

  Lines tilde = {"**bash**", "~~~", "printf '%s\\n' a", "```", "b", "~~~~"};
  EXPECT_EQ(executed_form(terminal("printf '%s\\n' a\n```\nb"), tilde, Status::Succeeded),
            (Lines{"✓ Executed:", "~~~", "printf '%s\\n' a", "```", "b", "~~~~"}));
}

TEST(ExecutedForm, FenceContentThatLooksLikeAPurposeLineStaysInTheFence) {
  Lines block = {"**bash**", "```bash", "grep x a.txt \\", "> out.txt", "```", "> save matches"};
  EXPECT_EQ(
      executed_form(terminal("grep x a.txt \\\n> out.txt"), block, Status::Succeeded),
      (Lines{"✓ Executed:", "```bash", "grep x a.txt \\", "> out.txt", "```", "> save matches"}));
}

TEST(ExecutedForm, OlderExecuteHeaderForm) {
  Lines block = {"**Execute:** `make test`", "> run the tests"};
  parse::ToolCall c =
      call("run_terminal_command", {{"command", "make test"}, {"explanation", "run the tests"}});
  EXPECT_EQ(executed_form(c, block, Status::Succeeded),
            (Lines{"✓ Executed: `make test`", "> run the tests"}));
}

TEST(ExecutedForm, OlderExecuteHeaderWithABacktickCommandGetsAFence) {
  // ``echo `date` `` has no fence to keep: the command must not be lost.
  Lines block = {"**Execute:** ``echo `date` ``"};
  EXPECT_EQ(executed_form(terminal("echo `date`"), block, Status::Succeeded),
            (Lines{"✓ Executed:", "```bash", "echo `date`", "```"}));
  Lines triple = {"**Execute:** `x`"};
  EXPECT_EQ(executed_form(terminal("a```b"), triple, Status::Succeeded),
            (Lines{"✓ Executed:", "````bash", "a```b", "````"}));
}

TEST(ExecutedForm, FileToolsKeepTheirFencesAndGetTheirOwnHeader) {
  Lines write = {"**Write:** `src/a.c`", "```c", "int main() {}", "```"};
  EXPECT_EQ(executed_form(
                call("create_or_replace_file", {{"path", "src/a.c"}, {"content", "int main() {}"}}),
                write, Status::Succeeded),
            (Lines{"✓ Wrote: `src/a.c`", "```c", "int main() {}", "```"}));

  Lines replace = {"**Replace:** `a.txt`", "**Search:**", "```", "old", "```",
                   "**Replace:**",         "```",         "new", "```"};
  Lines replaced = replace;
  replaced[0] = "✓ Replaced in: `a.txt`";
  EXPECT_EQ(executed_form(call("replace_in_file", {{"path", "a.txt"}}), replace, Status::Succeeded),
            replaced);
  replaced[0] = "✗ Failed: `a.txt`";
  EXPECT_EQ(executed_form(call("replace_in_file", {{"path", "a.txt"}}), replace, Status::Failed),
            replaced);

  EXPECT_EQ(executed_form(call("read_file", {{"path", "README.md"}}), {"**Read:** `README.md`"},
                          Status::Succeeded),
            Lines{"✓ Read: `README.md`"});
  EXPECT_EQ(executed_form(call("list_directory", {{"path", "src"}}), {"**ls:** `src`"},
                          Status::Succeeded),
            Lines{"✓ ls: `src`"});
  EXPECT_EQ(
      executed_form(call("list_directory", {{"path", "src"}}), {"**ls:** `src`"}, Status::TimedOut),
      Lines{"✗ Timed out: `src`"});
}

TEST(ExecutedForm, FencedDialectsAndExecutedBlocksKeepTheirBlock) {
  Lines xml = {"```xml", "<tools>", "</tools>", "```"};
  parse::ToolCall cc =
      call("run_terminal_command", {{"command", "ls"}}, parse::Dialect::CodeCompanion);
  EXPECT_TRUE(keeps_block(cc));
  EXPECT_EQ(executed_form(cc, xml, Status::Succeeded), xml);

  parse::ToolCall json = call("run_terminal_command", {{"command", "ls"}}, parse::Dialect::Json);
  EXPECT_TRUE(keeps_block(json));

  parse::ToolCall sidekick = terminal("ls");
  EXPECT_FALSE(keeps_block(sidekick));
  sidekick.executed_form = true;  // re-run of "✓ Executed: `ls`": the header is already right
  EXPECT_TRUE(keeps_block(sidekick));
}

// --- round trip: what the host writes, the parser reads back as the same, finished call ---

namespace roundtrip {

parse::Options options() {
  parse::Options o;
  o.tools = core::builtin_tool_table();
  return o;
}

// Replaces `call`'s block by its executed form and result block, as ui.lua would.
Lines finish(const Lines& buffer, const parse::ToolCall& c, const jobs::JobInfo& job) {
  Lines block(buffer.begin() + c.start, buffer.begin() + c.end);
  Lines written = keeps_block(c) ? block : executed_form(c, block, job.status);
  ResultOptions result_options;
  result_options.part = c.part;
  Lines result = result_block(job, terminal_body(job, result_options), result_options);
  written.insert(written.end(), result.begin(), result.end());
  Lines out(buffer.begin(), buffer.begin() + c.start);
  out.insert(out.end(), written.begin(), written.end());
  out.insert(out.end(), buffer.begin() + c.end, buffer.end());
  return out;
}

jobs::JobInfo job_for(const parse::ToolCall& c, jobs::Status status, int exit_code,
                      const std::string& stdout_text) {
  jobs::JobInfo job;
  job.id = "th-7";
  job.spec.tool = c.tool;
  job.status = status;
  job.exit_code = exit_code;
  job.duration_s = 0.25;
  job.out.append(stdout_text);
  return job;
}

void expect_round_trip(const Lines& buffer, jobs::Status status, core::Status parsed,
                       const std::string& output = "ok\n") {
  parse::ParseResult before = parse::parse(buffer, options());
  ASSERT_EQ(before.calls.size(), 1u);
  ASSERT_TRUE(before.errors.empty()) << before.errors[0].message;
  const parse::ToolCall& c = before.calls[0];
  ASSERT_EQ(c.status, core::Status::Pending);
  Lines after_lines =
      finish(buffer, c, job_for(c, status, status == jobs::Status::Succeeded ? 0 : 1, output));
  parse::ParseResult after = parse::parse(after_lines, options());
  std::string text;
  for (const auto& line : after_lines) text += line + "\n";
  ASSERT_EQ(after.calls.size(), 1u) << text;
  EXPECT_TRUE(after.errors.empty()) << (after.errors.empty() ? "" : after.errors[0].message) << "\n"
                                    << text;
  const parse::ToolCall& done = after.calls[0];
  EXPECT_EQ(done.status, parsed) << text;
  EXPECT_EQ(done.id, c.id) << "the call id must survive the rewrite\n" << text;
  EXPECT_EQ(done.tool, c.tool);
  ASSERT_TRUE(done.result.has_value()) << text;
  EXPECT_EQ(done.result->job_id, "th-7");
}

TEST(ExecutedFormRoundTrip, OneLineCommand) {
  expect_round_trip({"USER: test it", "ASSISTANT: sure", "**bash**", "```bash", "make test", "```",
                     "> run tests", "", "Done."},
                    jobs::Status::Succeeded, core::Status::Succeeded);
}

TEST(ExecutedFormRoundTrip, FailedMultiLineCommand) {
  expect_round_trip(
      {"USER: build", "ASSISTANT: sure", "**bash**", "```bash", "cd src", "make", "```", "> build"},
      jobs::Status::Failed, core::Status::Failed);
}

TEST(ExecutedFormRoundTrip, CommandWithABacktick) {
  expect_round_trip({"USER: date", "ASSISTANT: sure", "**bash**", "```bash", "echo `date`", "```"},
                    jobs::Status::Succeeded, core::Status::Succeeded);
}

TEST(ExecutedFormRoundTrip, OutputHoldingFencesAndHeaders) {
  expect_round_trip({"USER: cat", "ASSISTANT: sure", "**bash**", "```bash", "cat README.md", "```"},
                    jobs::Status::Succeeded, core::Status::Succeeded,
                    "# Title\n````\n```sh\nmake\n```\n````\n");
}

TEST(ExecutedFormRoundTrip, WriteFile) {
  expect_round_trip(
      {"USER: write", "ASSISTANT: sure", "**Write:** `src/a.c`", "```c", "int main() {}", "```"},
      jobs::Status::Succeeded, core::Status::Succeeded, "Wrote 1 lines\n");
}

TEST(ExecutedFormRoundTrip, InsertKeepsItsLineInTheHeader) {
  Lines insert = {"**Insert:** `a.lua:12`", "```lua", "local x = 1", "```", "> guard"};
  EXPECT_EQ(executed_form(call("insert_into_file", {{"path", "a.lua"}, {"line", 12}}), insert,
                          Status::Succeeded),
            (Lines{"✓ Inserted into: `a.lua:12`", "```lua", "local x = 1", "```", "> guard"}));
  expect_round_trip({"USER: guard it", "ASSISTANT: sure", "**Insert:** `a.lua:12`", "```lua",
                     "local x = 1", "```", "> guard"},
                    jobs::Status::Failed, core::Status::Failed);
}

TEST(ExecutedFormRoundTrip, ReplacementWithCandidateSplits) {
  expect_round_trip({"USER: edit", "ASSISTANT: sure", "**Replace:** `a.py`", "```python", "a = 1",
                     "", "b = 2", "", "c = 3", "```"},
                    jobs::Status::Succeeded, core::Status::Succeeded);
}

TEST(ExecutedFormRoundTrip, CodeCompanionXmlKeepsItsFence) {
  expect_round_trip({"## Me", "", "run it", "", "## CodeCompanion (Copilot)", "", "```xml",
                     "<tools>", "  <tool name=\"cmd_runner\">",
                     "    <action><command><![CDATA[make test]]></command></action>", "  </tool>",
                     "</tools>", "```"},
                    jobs::Status::Succeeded, core::Status::Succeeded);
}

}  // namespace roundtrip

}  // namespace
}  // namespace toolhost::results
