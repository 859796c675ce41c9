// `toolhost parse`: reading transcripts like Neovim does (and writing them back unchanged), JSON
// and text output, exit codes.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "cli/parse_command.h"
#include "cli/transcript.h"
#include "test_jobs.h"

namespace toolhost::cli {
namespace {

std::string fixture(const std::string& name) {
  return std::string(TOOLHOST_FIXTURES) + "/" + name;
}

// The files write_temp() made; removed when the test program ends.
class TempFiles : public ::testing::Environment {
 public:
  static std::vector<std::string>& paths() {
    static std::vector<std::string> created;
    return created;
  }
  void TearDown() override {
    for (const auto& path : paths()) std::remove(path.c_str());
  }
};
const auto* const kTempFiles = ::testing::AddGlobalTestEnvironment(new TempFiles);

std::string write_temp(const std::string& text) {
  char path[] = "/tmp/toolhost-cli-XXXXXX";
  int fd = ::mkstemp(path);
  ::close(fd);
  std::ofstream(path, std::ios::binary) << text;
  TempFiles::paths().push_back(path);
  return path;
}

struct ParseOutcome {
  int status;
  std::string out;
  std::string err;
};

ParseOutcome run(ParseCommand command) {
  std::ostringstream out, err;
  int status = run_parse_command(command, out, err);
  return {status, out.str(), err.str()};
}

TEST(ReadLines, SplitsLikeNvimBufGetLines) {
  std::string path = write_temp("a\r\nb\n\nc");
  auto lines = read_lines(path);
  ASSERT_TRUE(lines) << lines.error();
  EXPECT_EQ(*lines, (std::vector<std::string>{"a", "b", "", "c"}));
  path = write_temp("one\n");
  EXPECT_EQ(*read_lines(path), (std::vector<std::string>{"one"}));
  auto missing = read_lines("/nonexistent/x.md");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error(), "cannot read /nonexistent/x.md: No such file or directory");
}

TEST(Transcript, AnyTextRoundTrips) {
  for (const std::string text :
       {"", "\n", "a", "a\n", "a\r\nb\r\n", "a\r\nb", "a\nb\r\n", "a\r", "a\r\n\r\n", "\r\n"}) {
    Transcript transcript = split_transcript(text);
    EXPECT_EQ(join_transcript(transcript), text) << nlohmann::json(text).dump();
  }
  EXPECT_EQ(split_transcript("a\r\nb\r\n").lines, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(split_transcript("a\nb\r\n").lines, (std::vector<std::string>{"a", "b\r"}));
}

TEST(Transcript, AtomicWritesGoThroughSymlinksKeepTheModeAndLeaveNoTemporaryFile) {
  jobs::testing::TempDir dir;
  std::ofstream(dir / "chat.md") << "old\n";
  ASSERT_EQ(::chmod((dir / "chat.md").c_str(), 0600), 0);
  std::filesystem::create_symlink("chat.md", dir / "link.md");
  auto written = write_file_atomically(dir / "link.md", "new\n");
  ASSERT_TRUE(written) << written.error();
  EXPECT_TRUE(std::filesystem::is_symlink(dir / "link.md"));
  EXPECT_EQ(*read_file_text(dir / "chat.md"), "new\n");
  struct stat st {};
  ASSERT_EQ(::stat((dir / "chat.md").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  size_t entries = 0;
  for (auto it = std::filesystem::directory_iterator(dir.path());
       it != std::filesystem::directory_iterator(); ++it)
    ++entries;
  EXPECT_EQ(entries, 2u);
}

TEST(ParseCommand, JsonListsCallsWithZeroBasedRows) {
  ParseOutcome r = run({fixture("bash_block.chat.md"), "", true});
  ASSERT_EQ(r.status, 0) << r.err;
  auto json = nlohmann::json::parse(r.out);
  ASSERT_EQ(json["calls"].size(), 1u) << r.out;
  const auto& call = json["calls"][0];
  EXPECT_EQ(call["tool"], "run_terminal_command");
  EXPECT_EQ(call["params"]["command"], "echo hello from toolhost");
  EXPECT_EQ(call["params"]["purpose"], "List something");
  EXPECT_EQ(call["dialect"], "sidekick");
  EXPECT_EQ(call["start"], 3);
  EXPECT_EQ(call["end"], 8);
  EXPECT_EQ(call["status"], "pending");
  EXPECT_TRUE(call["result"].is_null());
  EXPECT_EQ(call["id"].get<std::string>().size(), 12u);
  EXPECT_EQ(json["messages"].size(), 3u);
  EXPECT_TRUE(json["errors"].empty());
}

TEST(ParseCommand, MalformedBlocksAreListedWithLinesAndExitOne) {
  ParseOutcome r = run({fixture("parse/malformed.chat.md"), "", false});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("error lines 14-16: line 15: unknown tool `no_such_tool`"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("line 25: unclosed fence"), std::string::npos) << r.out;
}

TEST(ParseCommand, RolesComeFromTheConfigFile) {
  std::string transcript = write_temp("## Boss\nrun it\n## Bot\n**bash**\n```bash\nls\n```\n");
  ParseOutcome plain = run({transcript, "", true});
  EXPECT_TRUE(nlohmann::json::parse(plain.out)["calls"].empty()) << plain.out;

  std::string config = write_temp(R"({"roles": {"user": ["Boss"], "assistant": ["Bot"]}})");
  ParseOutcome custom = run({transcript, config, true});
  ASSERT_EQ(custom.status, 0) << custom.err;
  auto json = nlohmann::json::parse(custom.out);
  ASSERT_EQ(json["calls"].size(), 1u) << custom.out;
  EXPECT_EQ(json["calls"][0]["params"]["command"], "ls");
}

TEST(ParseCommand, UnreadableInputIsAClearErrorWithStatusTwo) {
  ParseOutcome missing = run({"/nonexistent/chat.md", "", false});
  EXPECT_EQ(missing.status, 2);
  EXPECT_EQ(missing.err,
            "toolhost parse: cannot read /nonexistent/chat.md: No such file or directory\n");
  EXPECT_TRUE(missing.out.empty());

  ParseOutcome bad_config = run({fixture("bash_block.chat.md"), write_temp("[1, 2"), false});
  EXPECT_EQ(bad_config.status, 2);
  EXPECT_NE(bad_config.err.find("not a JSON object"), std::string::npos) << bad_config.err;
}

TEST(ParseCommand, InvalidUtf8InParamsStillPrintsJson) {
  std::string transcript =
      write_temp("USER: x\nASSISTANT: y\n**bash**\n```bash\necho \xff\xfe\n```\n");
  ParseOutcome r = run({transcript, "", true});
  ASSERT_EQ(r.status, 0) << r.err;
  auto json = nlohmann::json::parse(r.out);
  ASSERT_EQ(json["calls"].size(), 1u);
  EXPECT_EQ(json["calls"][0]["params"]["command"], "echo \xEF\xBF\xBD\xEF\xBF\xBD");
}

}  // namespace
}  // namespace toolhost::cli
