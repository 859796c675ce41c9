// A Session against the real job engine and parser, with the feedback batches it sends
// captured instead of applied by Neovim: what a buffer's calls turn into.
#include "session/session.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "core/tool_table.h"
#include "test_jobs.h"
#include "test_loop.h"

namespace toolhost::session {
namespace {

using nlohmann::json;
using Lines = std::vector<std::string>;

constexpr int64_t kBuf = 7;

class SessionTest : public ::testing::Test {
 protected:
  SessionTest()
      : feedback_(loop_.get(), [this](json batch) { batches_.push_back(std::move(batch)); }),
        config_(*core::config_from_json(json{{"kill_grace_ms", 100}})),
        tools_(core::builtin_tool_table()),
        engine_(loop_.get(), {}),
        session_(std::make_unique<Session>(Context{feedback_, engine_, config_, tools_}, kBuf,
                                           dir_.path(), dir_ / "t.chat.md")) {}

  ~SessionTest() override {
    bool done = false;
    engine_.shutdown(100, [&] { done = true; });
    loop_.run_until([&] { return done; });
    feedback_.close();
    loop_.drain();
  }

  // The whole buffer, as the host read it after the attach.
  void load(Lines lines) { session_->load(std::move(lines)); }

  // Every item of `list` ("edits", "marks", "diags", …) sent for the buffer so far.
  json sent(const char* list) const {
    json all = json::array();
    for (const auto& batch : batches_) {
      for (const auto& entry : batch.value("buffers", json::array())) {
        if (entry["buf"] != kBuf) continue;
        for (const auto& item : entry.value(list, json::array())) all.push_back(item);
      }
    }
    return all;
  }

  json notes() const {
    json all = json::array();
    for (const auto& batch : batches_) {
      for (const auto& note : batch.value("notify", json::array())) all.push_back(note);
    }
    return all;
  }

  bool wait_for_edits(size_t count) {
    return loop_.run_until([&] { return sent("edits").size() >= count; }, 10000);
  }

  testing::TestLoop loop_;
  jobs::testing::TempDir dir_;
  std::vector<json> batches_;
  Feedback feedback_;
  core::Config config_;
  core::ToolTable tools_;
  jobs::Engine engine_;
  std::unique_ptr<Session> session_;
};

const Lines kBash = {"USER: hi", "ASSISTANT: ok", "",    "**bash**",
                     "```bash",  "echo hi",       "```", "USER: "};

TEST_F(SessionTest, RunAtRewritesTheBlockToItsExecutedFormWithTheResult) {
  load(kBash);
  session_->run_at(5, false);
  ASSERT_TRUE(wait_for_edits(1));
  json edit = sent("edits")[0];
  EXPECT_EQ(edit["expect"], json(Lines{"**bash**", "```bash", "echo hi", "```"}));
  EXPECT_EQ(edit["lines"][0], "✓ Executed: `echo hi`");
  EXPECT_EQ(
      edit["lines"][1].get<std::string>().rfind("````result id=th-1 tool=run_terminal_command "
                                                "status=succeeded exit=0 duration=",
                                                0),
      0u)
      << edit;
  EXPECT_FALSE(edit.contains("insert"));
}

// Lua moves a mark by the changes made after the host read its rows (blocks.lua): a mark says
// the changedtick of the lines event its rows come from, none after a read in slices.
TEST_F(SessionTest, MarksSayTheChangedtickTheirRowsWereReadAt) {
  load({"USER: hi", "ASSISTANT: ok", "**bash**", "```bash", "echo one", "```"});
  nvim::LinesEvent event;
  event.buf = kBuf;
  event.changedtick = 12;
  event.first = event.last = 6;
  event.lines = {"**bash**", "```bash", "echo two", "```"};
  session_->on_lines(event);
  ASSERT_TRUE(loop_.run_until([&] { return sent("marks").size() == 2; }));
  json marks = sent("marks");
  EXPECT_EQ(marks[0]["row"], 2);
  EXPECT_FALSE(marks[0].contains("tick")) << marks;
  EXPECT_EQ(marks[1]["row"], 6);
  EXPECT_EQ(marks[1]["end_row"], 9);
  EXPECT_EQ(marks[1]["tick"], 12);
}

TEST_F(SessionTest, RunOnAnUnclosedBlockSaysItIsNotClosedYet) {
  load({"USER: hi", "ASSISTANT: ok", "**bash**", "```bash", "echo hi"});
  session_->run_at(3, false);
  loop_.run_until([&] { return !notes().empty(); });
  ASSERT_EQ(notes().size(), 1u);
  EXPECT_EQ(notes()[0]["message"],
            "This tool call's block is not closed yet (its closing fence is missing)");
  EXPECT_EQ(engine_.list().size(), 0u);
}

TEST_F(SessionTest, ParameterOfTheWrongTypeIsARefusalNamingIt) {
  load({"## Me", "run it", "## CodeCompanion", "```json",
        R"({"tool": "run_terminal_command", "parameters": {"command": 5}})", "```", "## Me"});
  session_->run_at(4, false);
  ASSERT_TRUE(wait_for_edits(1));
  json edit = sent("edits")[0];
  EXPECT_EQ(edit["insert"], true);
  ASSERT_GE(edit["lines"].size(), 2u);
  EXPECT_NE(edit["lines"][0].get<std::string>().find("status=failed"), std::string::npos);
  EXPECT_EQ(edit["lines"][1], "Refused: parameter `command` must be a string, not a number");
  bool diagnosed = false;
  for (const auto& d : sent("diags")) {
    diagnosed = diagnosed || d["message"] ==
                                 "✗ run_terminal_command: refused: parameter "
                                 "`command` must be a string, not a number";
  }
  EXPECT_TRUE(diagnosed) << sent("diags");
}

TEST_F(SessionTest, ResultsOfAMultiCallBlockGoAfterTheLowerParts) {
  load({"## Me", "go", "## CodeCompanion", "```json",
        R"([{"tool": "run_terminal_command", "parameters": {"command": "echo one"}},)",
        R"( {"tool": "run_terminal_command", "parameters": {"command": "echo two"}}])", "```",
        "````result id=th-90 tool=run_terminal_command status=succeeded exit=0 duration=0.01s "
        "part=1",
        "Exit code: 0", "````", "## Me"});
  session_->run_at(4, false);  // part 1 is finished: the first pending one is part 2
  ASSERT_TRUE(wait_for_edits(1));
  json edit = sent("edits")[0];
  EXPECT_EQ(edit["insert"], true);
  EXPECT_EQ(edit["after_rows"], 3);  // part 1's result block
  EXPECT_EQ(edit["after_keys"].size(), 1u);
  EXPECT_NE(edit["lines"][0].get<std::string>().find(" part=2"), std::string::npos) << edit;
}

TEST_F(SessionTest, BlockOnTheRoleLineKeepsItsLineAndGetsItsResultAfter) {
  load({"USER: hi", "ASSISTANT: **zsh**", "```zsh", "echo hi", "```", "USER: "});
  session_->run_at(3, false);
  ASSERT_TRUE(wait_for_edits(1));
  json edit = sent("edits")[0];
  EXPECT_EQ(edit["insert"], true) << edit;
  EXPECT_EQ(edit["expect"], json(Lines{"ASSISTANT: **zsh**", "```zsh", "echo hi", "```"}));
  EXPECT_EQ(edit["lines"][0].get<std::string>().rfind("````result id=th-1", 0), 0u) << edit;
}

TEST_F(SessionTest, HeadersSideBySideRunAsPartsOfOneBlock) {
  load({"USER: hi", "ASSISTANT: ok", "**Execute:** `echo a`**Execute:** `echo b`", "USER: "});
  session_->run_at(2, false);
  ASSERT_TRUE(wait_for_edits(1));
  json edit = sent("edits")[0];
  EXPECT_EQ(edit["insert"], true) << edit;
  EXPECT_NE(edit["lines"][0].get<std::string>().find(" part=1"), std::string::npos) << edit;
}

TEST_F(SessionTest, FiletypeDecidesWhichHeadersSplitMessages) {
  // In a CodeCompanion buffer, a pasted `ASSISTANT:` line is the user's text, not a reply.
  session_->set_filetype("codecompanion");
  load({"## Me", "ASSISTANT: **Execute:** `echo pasted`", "## CodeCompanion", "fine"});
  session_->run_at(1, false);
  loop_.run_until([&] { return !notes().empty(); });
  ASSERT_EQ(notes().size(), 1u);
  EXPECT_EQ(notes()[0]["message"], "No tool call under the cursor");
  EXPECT_EQ(engine_.list().size(), 0u);
}

TEST_F(SessionTest, ReadFileRunsOffTheLoopAndShowsTheNumberedText) {
  std::ofstream(dir_ / "notes.txt") << "first\nsecond\n";
  load({"USER: hi", "ASSISTANT: ok", "**Read:** `notes.txt`", "USER: "});
  session_->run_at(2, false);
  ASSERT_TRUE(wait_for_edits(1));
  json edit = sent("edits")[0];
  ASSERT_GE(edit["lines"].size(), 5u) << edit;
  EXPECT_EQ(edit["lines"][0], "✓ Read: `notes.txt`");
  EXPECT_EQ(edit["lines"][1].get<std::string>().rfind(
                "````result id=th-1 tool=read_file status=succeeded duration=", 0),
            0u)
      << edit;
  EXPECT_EQ(edit["lines"][1].get<std::string>().find("exit="), std::string::npos);
  EXPECT_EQ(edit["lines"][2], "     1\tfirst");
  EXPECT_EQ(edit["lines"][3], "     2\tsecond");
  EXPECT_EQ(edit["lines"][4], "````");
}

TEST_F(SessionTest, ReadFileOfAMissingFileFailsWithItsReason) {
  load({"USER: hi", "ASSISTANT: ok", "**Read:** `gone.txt`", "USER: "});
  session_->run_at(2, false);
  ASSERT_TRUE(wait_for_edits(1));
  json edit = sent("edits")[0];
  EXPECT_EQ(edit["lines"][0], "✗ Failed: `gone.txt`");
  EXPECT_NE(edit["lines"][1].get<std::string>().find("status=failed"), std::string::npos);
  EXPECT_EQ(edit["lines"][2], "Error: `gone.txt` does not exist");
  bool diagnosed = false;
  for (const auto& d : sent("diags")) {
    diagnosed = diagnosed || d["message"] == "✗ read_file: `gone.txt` does not exist";
  }
  EXPECT_TRUE(diagnosed) << sent("diags");
}

TEST_F(SessionTest, SearchFilesFindsAndNothingFoundIsNoFailure) {
  std::ofstream(dir_ / "notes.txt") << "buy milk\nfix the parser\n";
  load({"## Me", "find", "## CodeCompanion", "```json",
        R"({"tool": "search_files", "parameters": {"pattern": "milk"}})", "```", "```json",
        R"({"tool": "grep", "parameters": {"pattern": "no such words"}})", "```", "## Me"});
  session_->run_at(4, false);
  ASSERT_TRUE(wait_for_edits(1));
  session_->run_at(7, false);
  ASSERT_TRUE(wait_for_edits(2));
  std::string found = sent("edits")[0]["lines"].dump();
  EXPECT_NE(found.find("tool=search_files status=succeeded exit=0"), std::string::npos) << found;
  EXPECT_NE(found.find("./notes.txt:1:buy milk"), std::string::npos) << found;
  std::string none = sent("edits")[1]["lines"].dump();
  EXPECT_NE(none.find("tool=search_files status=succeeded exit=1"), std::string::npos) << none;
}

TEST_F(SessionTest, ReattachedWhileAJobRunsTheResultStillLands) {
  std::string go = dir_ / "go";
  Lines lines = {"USER: hi",
                 "ASSISTANT: ok",
                 "**bash**",
                 "```bash",
                 "while [ ! -e go ]; do sleep 0.02; done; echo went",
                 "```",
                 "USER: "};
  load(lines);
  session_->run_at(4, false);
  ASSERT_TRUE(loop_.run_until([&] { return engine_.running() == 1 && sent("marks").size() == 1; }));
  session_->detach();
  EXPECT_TRUE(session_->detached());
  session_->reattach(dir_.path(), dir_ / "t.chat.md");
  load(lines);  // read again after the attach
  // Lua forgot the extmark with the buffer: the block is marked again.
  EXPECT_TRUE(loop_.run_until([&] { return sent("marks").size() == 2; }));
  std::ofstream(go).put('\n');
  ASSERT_TRUE(wait_for_edits(1));
  EXPECT_EQ(sent("edits")[0]["lines"][0],
            "✓ Executed: `while [ ! -e go ]; do sleep 0.02; done; echo went`");
}

TEST_F(SessionTest, DetachedSessionWritesNoResult) {
  load({"USER: hi", "ASSISTANT: ok", "**bash**", "```bash", "echo gone", "```", "USER: "});
  session_->run_at(4, false);
  session_->detach();
  ASSERT_TRUE(loop_.run_until(
      [&] { return engine_.list().size() == 1 && core::is_finished(engine_.list()[0]->status); }));
  loop_.poll();
  EXPECT_EQ(sent("edits").size(), 0u);
}

// Issue #28 §0: a git command the chain auto-runs does not run the fsmonitor the repository
// names; the same command run by the user (:ToolRun) keeps the user's configuration.
TEST_F(SessionTest, AutoRunGitIgnoresTheRepositorysFsmonitorAndTheUsersRunKeepsIt) {
  jobs::testing::ScopedEnv no_global("GIT_CONFIG_GLOBAL", "/dev/null");
  const std::string init =
      "cd '" + dir_.path() + "' && git init -q . && git config core.fsmonitor 'touch x; true'";
  ASSERT_EQ(std::system(init.c_str()), 0);
  const Lines lines = {"USER: hi",   "ASSISTANT: ok", "**bash**", "```bash",
                       "git status", "```",           "USER: "};
  session_->set_auto_run(true);
  load(lines);
  session_->reply_complete(false, 0);
  ASSERT_TRUE(wait_for_edits(1));
  EXPECT_NE(sent("edits")[0]["lines"].dump().find("status=succeeded"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(dir_ / "x"));
  session_->run_at(4, true);
  ASSERT_TRUE(wait_for_edits(2));
  EXPECT_TRUE(std::filesystem::exists(dir_ / "x"));
}

}  // namespace
}  // namespace toolhost::session
