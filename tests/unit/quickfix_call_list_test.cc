// One call's output parsed by Neovim's own errorformat engine in the worker (issue #39): a real
// headless Neovim (TOOLHOST_TEST_NVIM, else `nvim` on PATH), real chunks, real files.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "quickfix/call_list.h"
#include "quickfix/format_choice.h"
#include "quickfix/formats.h"
#include "quickfix/worker_lua.h"
#include "test_loop.h"

namespace toolhost::quickfix {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string test_nvim() {
  const char* chosen = std::getenv("TOOLHOST_TEST_NVIM");
  return chosen && *chosen ? chosen : "nvim";
}

// `nvim` names a file on PATH for uv_spawn; the worker is given what Lua's v:progpath gives,
// an absolute path, so the test resolves it the same way.
std::string absolute_nvim() {
  std::string name = test_nvim();
  if (name.find('/') != std::string::npos) return name;
  for (std::string dir : {"/usr/local/bin", "/usr/bin", "/bin"}) {
    if (::access((dir + "/" + name).c_str(), X_OK) == 0) return dir + "/" + name;
  }
  return name;
}

class QuickfixCallList : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/toolhost-qf-XXXXXX";
    ASSERT_TRUE(::mkdtemp(pattern));
    dir_ = pattern;
    fs::create_directories(dir_ + "/sub");
    for (const char* file : {"a.c", "b.c", "sub/c.c"}) std::ofstream(dir_ + "/" + file) << "x\n";
  }
  void TearDown() override {
    if (worker_) {
      bool closed = false;
      worker_->close([&] { closed = true; });
      EXPECT_TRUE(loop_.run_until([&] { return closed; }, 5000));
      worker_.reset();
    }
    fs::remove_all(dir_);
  }

  Worker& worker(const std::string& nvim = absolute_nvim()) {
    worker_ = std::make_unique<Worker>(loop_.get(), nvim, worker_lua::kPrelude);
    return *worker_;
  }

  std::unique_ptr<CallList> list(Format format, size_t max_items = 1000, size_t max_files = 300) {
    CallListSpec spec;
    spec.format = std::move(format);
    spec.title = "toolhost: test (#th-1)";
    spec.cwd = dir_;
    spec.log_path = "/logs/th-1.log";
    spec.max_items = max_items;
    spec.max_files = max_files;
    return std::make_unique<CallList>(
        worker_ ? *worker_ : worker(), std::move(spec),
        [this](std::vector<json> items, bool done) {
          ++updates_;
          for (auto& item : items) items_.push_back(std::move(item));
          done_ = done_ || done;
        },
        [this](const std::string& error) { errors_.push_back(error); });
  }

  bool wait_done() {
    return loop_.run_until([&] { return done_; }, 10000);
  }

  testing::TestLoop loop_;
  std::unique_ptr<Worker> worker_;
  std::string dir_;
  std::vector<json> items_;
  std::vector<std::string> errors_;
  int updates_ = 0;
  bool done_ = false;
};

Format ours(std::string_view efm) {
  return Format{"test", std::string(efm), "", true};
}

TEST_F(QuickfixCallList, GccLinesSplitAnywhereBecomeTypedItemsWithAbsoluteNames) {
  auto parse = list(ours(formats::kGcc));
  const std::string log =
      "a.c: In function 'main':\n"
      "a.c:3:5: error: 'x' undeclared\n"
      "a.c:4:1: warning: unused variable 'y'\n"
      "b.c:7:2: note: declared here\n"
      "b.c:9:1: fatal error: z.h: No such file or directory\n"
      "compilation terminated.\n";
  // Cut inside lines and across the two streams' partial lines.
  parse->output(1, log.substr(0, 10));
  parse->output(1, log.substr(10, 37));
  parse->output(1, log.substr(47));
  parse->finish();
  ASSERT_TRUE(wait_done());
  EXPECT_TRUE(errors_.empty()) << (errors_.empty() ? "" : errors_[0]);
  ASSERT_EQ(items_.size(), 4u) << json(items_).dump();
  EXPECT_EQ(items_[0]["filename"], dir_ + "/a.c");
  EXPECT_EQ(items_[0]["lnum"], 3);
  EXPECT_EQ(items_[0]["col"], 5);
  EXPECT_EQ(items_[0]["type"], "e");
  EXPECT_EQ(items_[0]["text"], "'x' undeclared");
  EXPECT_EQ(items_[1]["type"], "w");
  EXPECT_EQ(items_[2]["type"], "n");
  EXPECT_EQ(items_[2]["filename"], dir_ + "/b.c");
  EXPECT_EQ(items_[3]["type"], "f");
  EXPECT_GT(worker_->startup_ms(), 0);
}

TEST_F(QuickfixCallList, MakesDirectoryStackCarriesAcrossAppends) {
  auto parse = list(ours(formats::kMake));
  parse->output(0, "make[1]: Entering directory '" + dir_ + "/sub'\n");
  ASSERT_TRUE(
      loop_.run_until([&] { return updates_ > 0; }));  // the list exists; this chunk in flight
  parse->output(1, "c.c:2:1: error: in sub\n");
  parse->output(0, "make[1]: Leaving directory '" + dir_ + "/sub'\n");
  parse->output(1, "a.c:1:1: warning: at the top\n");
  parse->finish();
  ASSERT_TRUE(wait_done());
  ASSERT_EQ(items_.size(), 2u) << json(items_).dump();
  EXPECT_EQ(items_[0]["filename"], dir_ + "/sub/c.c");
  EXPECT_EQ(items_[1]["filename"], dir_ + "/a.c");
}

TEST_F(QuickfixCallList, AMultiLineEntrySplitBetweenAppendsIsOneItem) {
  // :compiler cargo (rustc's %E...%C --> form): the location comes on the line after.
  Format cargo{"cargo", "", "cargo", true};
  auto parse = list(cargo);
  parse->output(1, "error[E0425]: cannot find value `y` in this scope\n");
  ASSERT_TRUE(loop_.run_until([&] { return updates_ > 0; }));
  parse->flush();
  parse->output(1, " --> a.c:4:13\n  |\n4 |     let x = y;\n  |             ^ not found\n\n");
  parse->finish();
  ASSERT_TRUE(wait_done());
  ASSERT_EQ(items_.size(), 1u) << json(items_).dump();
  EXPECT_EQ(items_[0]["filename"], dir_ + "/a.c");
  EXPECT_EQ(items_[0]["lnum"], 4);
  EXPECT_EQ(items_[0]["col"], 13);
  EXPECT_EQ(items_[0]["type"], "E");
  EXPECT_EQ(items_[0]["nr"], 425);
}

TEST_F(QuickfixCallList, PastTheCapsOneItemNamesTheLog) {
  auto parse = list(ours(formats::kGcc), 2);
  for (int i = 1; i <= 5; ++i) parse->output(1, "a.c:" + std::to_string(i) + ":1: error: e\n");
  parse->finish();
  ASSERT_TRUE(wait_done());
  ASSERT_EQ(items_.size(), 3u);
  EXPECT_EQ(items_[2]["text"], "truncated; full log: /logs/th-1.log");
  EXPECT_EQ(items_[2]["valid"], 0);
  EXPECT_TRUE(parse->caps().truncated());
}

TEST_F(QuickfixCallList, AFileOverTheFileCapEndsTheList) {
  auto parse = list(ours(formats::kGcc), 100, 1);
  parse->output(1, "a.c:1:1: error: one\na.c:2:1: error: two\nb.c:1:1: error: three\n");
  parse->finish();
  ASSERT_TRUE(wait_done());
  ASSERT_EQ(items_.size(), 3u);
  EXPECT_EQ(items_[1]["text"], "two");
  EXPECT_EQ(items_[2]["text"], "truncated; full log: /logs/th-1.log");
}

TEST_F(QuickfixCallList, AnUnknownCompilerIsAnErrorAndNoList) {
  auto parse = list(Format{"nope", "", "no_such_compiler_here", true});
  parse->output(1, "a.c:1:1: error: e\n");
  parse->finish();
  ASSERT_TRUE(wait_done());
  ASSERT_EQ(errors_.size(), 1u);
  EXPECT_NE(errors_[0].find("no_such_compiler_here"), std::string::npos) << errors_[0];
  EXPECT_EQ(updates_, 1);  // only the end: no list was made
  EXPECT_TRUE(items_.empty());
}

TEST_F(QuickfixCallList, AWorkerThatCannotStartFailsTheListWithOneMessage) {
  worker("/nonexistent/nvim");
  auto parse = list(ours(formats::kGcc));
  parse->output(1, "a.c:1:1: error: e\n");
  parse->finish();
  ASSERT_TRUE(wait_done());
  ASSERT_EQ(errors_.size(), 1u);
  EXPECT_NE(errors_[0].find("/nonexistent/nvim"), std::string::npos) << errors_[0];
  EXPECT_TRUE(items_.empty());
}

TEST_F(QuickfixCallList, ManyChunksOfALongLogAllArrive) {
  auto parse = list(ours(formats::kGcc), 100000, 300);
  std::string block;
  for (int i = 1; i <= 5000; ++i) {
    block += (i % 2 ? "a.c:" : "b.c:") + std::to_string(i) + ":1: warning: w" + std::to_string(i) +
             "\n  some context line\n";
  }
  for (size_t at = 0; at < block.size(); at += 4096) {
    parse->output(1, block.substr(at, 4096));
    loop_.poll();
  }
  parse->finish();
  ASSERT_TRUE(wait_done());
  ASSERT_EQ(items_.size(), 5000u);
  EXPECT_EQ(items_[4999]["lnum"], 5000);
  EXPECT_EQ(items_[4999]["text"], "w5000");
}

}  // namespace
}  // namespace toolhost::quickfix
