// `toolhost run`: a transcript's pending calls run outside Neovim, with the same policy, and
// their results land in the file as a chat buffer gets them, in every dialect.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "cli/run_command.h"
#include "cli/transcript.h"
#include "test_jobs.h"

namespace toolhost::cli {
namespace {

namespace fs = std::filesystem;

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void spit(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// Durations differ from run to run; everything else in a result is exact.
std::string without_durations(const std::string& text) {
  static const std::regex duration("duration=[0-9]+\\.[0-9]{2}s");
  return std::regex_replace(text, duration, "duration=T");
}

struct Outcome {
  int status;
  std::string out;
  std::string err;
};

class CliRun : public ::testing::Test {
 protected:
  CliRun() {
    fs::create_directory(root_);
    spit(root_ + "/notes.txt", "first note\nsecond note\n");
  }

  // The fixture as `chat.md` in the project root.
  std::string copy_fixture(const std::string& name) {
    std::string text = slurp(std::string(TOOLHOST_FIXTURES) + "/run/" + name);
    EXPECT_FALSE(text.empty()) << name;
    spit(chat_, text);
    return text;
  }

  Outcome run(bool yes = false, bool dry_run = false, bool json = false) {
    RunCommand command;
    command.file = chat_;
    command.yes = yes;
    command.dry_run = dry_run;
    command.json = json;
    command.root = root_;
    // Outside the root, so that `ls` there sees only the transcript and the notes.
    command.state_dir = dir_ / "state";
    command.cache_dir = dir_ / "cache";
    std::ostringstream out, err;
    int status = run_run_command(command, out, err);
    return {status, out.str(), err.str()};
  }

  std::string chat() const { return without_durations(slurp(chat_)); }

  jobs::testing::TempDir dir_;
  std::string root_ = dir_ / "project";
  std::string chat_ = root_ + "/chat.md";
};

TEST_F(CliRun, SidekickWithoutYesRunsReadOnlyCallsAndHoldsTheRest) {
  std::string original = copy_fixture("sidekick.chat.md");
  Outcome r = run();
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err,
            "toolhost run: held run_terminal_command (line 12): `echo` is not on the allow list\n"
            "toolhost run: held create_or_replace_file (line 20): create_or_replace_file edits "
            "files (auto_accept_edits is off)\n");
  std::string expected = original;
  expected.replace(expected.find("**Read:** `notes.txt`\n"), 22,
                   "✓ Read: `notes.txt`\n"
                   "````result id=th-1 tool=read_file status=succeeded duration=T\n"
                   "     1\tfirst note\n"
                   "     2\tsecond note\n"
                   "````\n");
  EXPECT_EQ(chat(), expected);
  EXPECT_FALSE(fs::exists(root_ + "/out.txt"));
}

TEST_F(CliRun, SidekickWithYesRunsEverythingAndASecondRunFindsNothing) {
  copy_fixture("sidekick.chat.md");
  Outcome r = run(/*yes=*/true);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(chat(),
            "USER: Look at the notes, greet me and write a file.\n"
            "ASSISTANT: Let me read the notes first.\n"
            "\n"
            "✓ Read: `notes.txt`\n"
            "````result id=th-1 tool=read_file status=succeeded duration=T\n"
            "     1\tfirst note\n"
            "     2\tsecond note\n"
            "````\n"
            "\n"
            "Now a greeting:\n"
            "\n"
            "✓ Executed: `echo hello`\n"
            "> Say hello\n"
            "````result id=th-2 tool=run_terminal_command status=succeeded exit=0 duration=T\n"
            "Exit code: 0\n"
            "Stdout:\n"
            "hello\n"
            "````\n"
            "\n"
            "And the file:\n"
            "\n"
            "✓ Wrote: `out.txt`\n"
            "```text\n"
            "written by the model\n"
            "```\n"
            "````result id=th-3 tool=create_or_replace_file status=succeeded duration=T\n"
            "Wrote 1 lines to out.txt\n"
            "````\n"
            "USER: \n");
  EXPECT_EQ(slurp(root_ + "/out.txt"), "written by the model\n");  // a text file ends with one

  std::string before = slurp(chat_);
  struct stat first {};
  ASSERT_EQ(::stat(chat_.c_str(), &first), 0);
  Outcome again = run(/*yes=*/true);
  EXPECT_EQ(again.status, 0) << again.err;
  EXPECT_EQ(again.err, "");
  EXPECT_EQ(slurp(chat_), before);
  struct stat second {};
  ASSERT_EQ(::stat(chat_.c_str(), &second), 0);
  EXPECT_EQ(first.st_ino, second.st_ino) << "nothing ran, so the file is not even rewritten";
}

// SPEC 13.3's `**Tool:**` header, here naming a built-in: run, rewritten to `✓ Called:` above
// the kept fence, and finished when the file is read again.
TEST_F(CliRun, AToolHeaderBlockEndsAsCalledAndASecondRunFindsNothing) {
  spit(chat_,
       "USER: read the notes\nASSISTANT: ok\n**Tool:** `read_file`\n```json\n"
       "{\"path\": \"notes.txt\"}\n```\nUSER: \n");
  Outcome r = run();
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(chat(),
            "USER: read the notes\nASSISTANT: ok\n✓ Called: `read_file`\n```json\n"
            "{\"path\": \"notes.txt\"}\n```\n"
            "````result id=th-1 tool=read_file status=succeeded duration=T\n"
            "     1\tfirst note\n     2\tsecond note\n````\nUSER: \n");
  const std::string before = slurp(chat_);
  Outcome again = run(/*yes=*/true);
  EXPECT_EQ(again.status, 0) << again.err;
  EXPECT_EQ(slurp(chat_), before);
}

TEST_F(CliRun, DryRunSaysWhatWouldHappenAndChangesNothing) {
  std::string original = copy_fixture("sidekick.chat.md");
  Outcome r = run(/*yes=*/false, /*dry_run=*/true);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out,
            "would run read_file (line 4): read_file only reads\n"
            "would hold run_terminal_command (line 8): `echo` is not on the allow list\n"
            "would hold create_or_replace_file (line 16): create_or_replace_file edits files "
            "(auto_accept_edits is off)\n");
  Outcome yes = run(/*yes=*/true, /*dry_run=*/true);
  EXPECT_EQ(yes.status, 0) << yes.err;
  EXPECT_NE(yes.out.find("would run create_or_replace_file (line 16): --yes"), std::string::npos)
      << yes.out;
  EXPECT_EQ(slurp(chat_), original);
  EXPECT_FALSE(fs::exists(root_ + "/out.txt"));
  EXPECT_FALSE(fs::exists(dir_ / "state")) << "no job was recorded";
}

TEST_F(CliRun, CodeCompanionResultsFollowTheFenceInPartOrder) {
  std::string original = copy_fixture("codecompanion.chat.md");
  Outcome first = run();
  EXPECT_EQ(first.status, 0) << first.err;
  EXPECT_EQ(first.err,
            "toolhost run: held run_terminal_command (line 9): `echo` is not on the allow list\n");
  const std::string fence_end = "</tools>\n```\n";
  const std::string ls_result =
      "````result id=th-1 tool=run_terminal_command status=succeeded exit=0 duration=T part=2\n"
      "Exit code: 0\n"
      "Stdout:\n"
      "chat.md\n"
      "notes.txt\n"
      "````\n";
  std::string expected = original;
  expected.insert(expected.find(fence_end) + fence_end.size(), ls_result);
  EXPECT_EQ(chat(), expected);

  // Part 1 runs later but goes before part 2's result, as in Neovim.
  Outcome second = run(/*yes=*/true);
  EXPECT_EQ(second.status, 0) << second.err;
  expected.insert(
      expected.find(fence_end) + fence_end.size(),
      "````result id=th-2 tool=run_terminal_command status=succeeded exit=0 duration=T part=1\n"
      "Exit code: 0\n"
      "Stdout:\n"
      "hi\n"
      "````\n");
  EXPECT_EQ(chat(), expected);
}

TEST_F(CliRun, JsonFencesGetTheirResultAfterTheFence) {
  std::string original = copy_fixture("json.chat.md");
  Outcome r = run(/*yes=*/false, /*dry_run=*/false, /*json=*/true);
  EXPECT_EQ(r.status, 0) << r.err;
  std::string expected = original;
  const std::string fence =
      "{\"tool\": \"read_file\", \"parameters\": {\"path\": \"notes.txt\"}}\n```\n";
  expected.insert(expected.find(fence) + fence.size(),
                  "````result id=th-1 tool=read_file status=succeeded duration=T\n"
                  "     1\tfirst note\n"
                  "     2\tsecond note\n"
                  "````\n");
  EXPECT_EQ(chat(), expected);
  std::istringstream lines(r.out);
  std::string line;
  std::vector<nlohmann::json> calls;
  while (std::getline(lines, line)) calls.push_back(nlohmann::json::parse(line));
  ASSERT_EQ(calls.size(), 2u) << r.out;
  EXPECT_EQ(calls[0]["tool"], "read_file");
  EXPECT_EQ(calls[0]["line"], 7);
  EXPECT_EQ(calls[0]["status"], "succeeded");
  EXPECT_EQ(calls[0]["job"], "th-1");
  EXPECT_EQ(calls[0]["id"].get<std::string>().size(), 12u);
  EXPECT_EQ(calls[1]["tool"], "run_terminal_command");
  EXPECT_EQ(calls[1]["line"], 15);
  EXPECT_EQ(calls[1]["status"], "held");
  EXPECT_TRUE(calls[1]["job"].is_null());
  EXPECT_EQ(calls[1]["reason"], "`echo` is not on the allow list");
}

TEST_F(CliRun, AFailingCommandIsWrittenAndExitsOne) {
  spit(chat_, "USER: fail\nASSISTANT: sure\n**bash**\n```bash\nexit 3\n```\nUSER: \n");
  Outcome r = run(/*yes=*/true);
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "toolhost run: failed run_terminal_command (line 3): exit 3 [th-1]\n");
  EXPECT_EQ(chat(),
            "USER: fail\nASSISTANT: sure\n"
            "✗ Failed: `exit 3`\n"
            "````result id=th-1 tool=run_terminal_command status=failed exit=3 duration=T\n"
            "Exit code: 3\n"
            "````\n"
            "USER: \n");
}

TEST_F(CliRun, ARefusedPathGetsAFailedResultThatSaysWhy) {
  spit(chat_, "USER: read it\nASSISTANT: ok\n\n**Read:** `../x`\n\nUSER: \n");
  Outcome r = run();  // read_file is auto-accepted; confinement still refuses it
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err,
            "toolhost run: failed read_file (line 4): refused: `../x` is outside the project root "
            "[th-1]\n");
  EXPECT_EQ(chat(),
            "USER: read it\nASSISTANT: ok\n\n"
            "✗ Failed: `../x`\n"
            "````result id=th-1 tool=read_file status=failed duration=T\n"
            "Refused: `../x` is outside the project root\n"
            "````\n"
            "\nUSER: \n");
}

// llm-sidekick's peer forms outside Neovim: the insertion and the split chosen by the file.
TEST_F(CliRun, InsertAndAMultiBlankReplacementRunOnTheFiles) {
  spit(root_ + "/a.py", "a = 1\nq\n");
  spit(chat_,
       "USER: x\nASSISTANT: ok\n\n**Insert:** `notes.txt:0`\n```\ntop note\n```\n\n"
       "**Replace:** `a.py`\n```\na = 1\n\nb = 2\n\nc = 3\n```\nUSER: \n");
  Outcome r = run(/*yes=*/true);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(slurp(root_ + "/notes.txt"), "top note\nfirst note\nsecond note\n");
  EXPECT_EQ(slurp(root_ + "/a.py"), "b = 2\n\nc = 3\nq\n");
  EXPECT_EQ(chat(),
            "USER: x\nASSISTANT: ok\n\n✓ Inserted into: `notes.txt:0`\n```\ntop note\n```\n"
            "````result id=th-1 tool=insert_into_file status=succeeded duration=T\n"
            "Inserted 1 line(s) into notes.txt at the top\n````\n\n"
            "✓ Replaced in: `a.py`\n```\na = 1\n\nb = 2\n\nc = 3\n```\n"
            "````result id=th-2 tool=replace_in_file status=succeeded duration=T\n"
            "Replaced 1 block(s) in a.py\n````\nUSER: \n");
}

TEST_F(CliRun, CrlfWithoutFinalNewlineAndTheModeAreKept) {
  spit(chat_, "USER: hi\r\nASSISTANT: ok\r\n**Read:** `notes.txt`\r\nUSER: bye");
  ASSERT_EQ(::chmod(chat_.c_str(), 0640), 0);
  Outcome r = run();
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(chat(),
            "USER: hi\r\nASSISTANT: ok\r\n"
            "✓ Read: `notes.txt`\r\n"
            "````result id=th-1 tool=read_file status=succeeded duration=T\r\n"
            "     1\tfirst note\r\n"
            "     2\tsecond note\r\n"
            "````\r\n"
            "USER: bye");
  struct stat st {};
  ASSERT_EQ(::stat(chat_.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);
}

TEST_F(CliRun, ASignalCancelsTheRunningCallWritesItAndStops) {
  // The job's shell signals its parent, this test: the run's SIGINT handler cancels the job.
  spit(chat_,
       "USER: go\nASSISTANT: ok\n**bash**\n```bash\nkill -INT $PPID; exec sleep 30\n```\n"
       "**bash**\n```bash\necho never\n```\nUSER: \n");
  Outcome r = run(/*yes=*/true);
  EXPECT_EQ(r.status, 128 + SIGINT);
  std::string text = chat();
  EXPECT_NE(text.find("✗ Canceled: `kill -INT $PPID; exec sleep 30`\n"
                      "````result id=th-1 tool=run_terminal_command status=canceled"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("**bash**\n```bash\necho never\n```\nUSER: \n"), std::string::npos) << text;
}

TEST_F(CliRun, UnreadableInputExitsTwo) {
  Outcome missing = run();
  EXPECT_EQ(missing.status, 2);
  EXPECT_EQ(missing.err, "toolhost run: cannot read " + chat_ + ": No such file or directory\n");
}

}  // namespace
}  // namespace toolhost::cli
