// Each command of the built-in map on a recorded log (tests/fixtures/quickfix/logs; real gcc,
// cargo and rustc output, the others in their tools' documented forms): the items Neovim's own
// engine gives, appended in small chunks through the worker, are those recorded in
// <name>.expected.json, and those of one whole-log getqflist({lines, efm}) in the same Neovim.
// TOOLHOST_RECORD_QUICKFIX=1 writes the expected files anew.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "quickfix/call_list.h"
#include "quickfix/format_choice.h"
#include "quickfix/worker_lua.h"
#include "test_loop.h"

namespace toolhost::quickfix {
namespace {

using nlohmann::json;

const std::string kLogs = std::string(TOOLHOST_FIXTURES) + "/quickfix/logs";

struct Recorded {
  const char* name;
  const char* command;
};

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string fixture_nvim() {
  const char* chosen = std::getenv("TOOLHOST_TEST_NVIM");
  if (chosen && *chosen) return chosen;
  for (std::string dir : {"/usr/local/bin", "/usr/bin", "/bin"}) {
    if (::access((dir + "/nvim").c_str(), X_OK) == 0) return dir + "/nvim";
  }
  return "nvim";
}

// What an item says, its file relative to the logs' directory.
json essentials(const json& item) {
  std::string file = item.value("filename", std::string());
  if (file.rfind(kLogs + "/", 0) == 0) file = file.substr(kLogs.size() + 1);
  return {{"file", file},
          {"lnum", item.value("lnum", 0)},
          {"col", item.value("col", 0)},
          {"type", item.value("type", "")},
          {"nr", item.value("nr", 0)},
          {"text", item.value("text", "")}};
}

class QuickfixRecordedLog : public ::testing::TestWithParam<Recorded> {
 protected:
  void TearDown() override {
    bool closed = false;
    worker_.close([&] { closed = true; });
    EXPECT_TRUE(loop_.run_until([&] { return closed; }));
  }
  testing::TestLoop loop_;
  Worker worker_{loop_.get(), fixture_nvim(), worker_lua::kPrelude};
};

TEST_P(QuickfixRecordedLog, NeovimsItemsArriveWhateverTheChunks) {
  const Recorded& recorded = GetParam();
  auto format = builtin_format(command_words(recorded.command));
  ASSERT_TRUE(format) << recorded.command;
  const std::string log = read(kLogs + "/" + recorded.name + ".log");
  ASSERT_FALSE(log.empty());

  CallListSpec spec;
  spec.format = *format;
  spec.title = recorded.command;
  spec.cwd = kLogs;
  std::vector<json> items;
  bool done = false;
  std::string error;
  CallList list(
      worker_, spec,
      [&](std::vector<json> more, bool end) {
        for (auto& item : more) items.push_back(essentials(item));
        done = done || end;
      },
      [&](const std::string& e) { error = e; });
  // Seven bytes at a time: lines and multi-line entries cut everywhere.
  for (size_t at = 0; at < log.size(); at += 7) {
    list.output(1, std::string_view(log).substr(at, 7));
    list.flush();  // each piece its own append when the last one is answered
    loop_.poll();
  }
  list.finish();
  ASSERT_TRUE(loop_.run_until([&] { return done; }, 10000));
  ASSERT_TRUE(error.empty()) << error;

  // The whole log at once, as getqflist({lines, efm}) parses it in the same Neovim.
  json whole;
  bool parsed = false;
  std::vector<std::string> lines;
  std::stringstream in(log);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  worker_.exec_lua(R"lua(
    local dir, compiler, efm, lines = ...
    vim.cmd("noautocmd cd " .. vim.fn.fnameescape(dir))
    if compiler ~= "" then efm = toolhost_qf.efm_of(compiler) end
    local out = { efm = efm, items = {} }
    for _, it in ipairs(vim.fn.getqflist({ lines = lines, efm = efm .. ",%-G%.%#" }).items) do
      if it.valid == 1 then
        it.filename = it.bufnr > 0 and vim.api.nvim_buf_get_name(it.bufnr) or ""
        out.items[#out.items + 1] = it
      end
    end
    return out
  )lua",
                   json::array({kLogs, format->compiler, format->efm, lines}),
                   [&](const std::string& e, json result) {
                     error = e;
                     whole = std::move(result);
                     parsed = true;
                   });
  ASSERT_TRUE(loop_.run_until([&] { return parsed; }, 10000));
  ASSERT_TRUE(error.empty()) << error;
  const std::string efm = whole["efm"];
  json expected_whole = json::array();
  for (const auto& item : whole["items"]) expected_whole.push_back(essentials(item));
  EXPECT_EQ(json(items), expected_whole);

  // Recorded with the 'errorformat' it was parsed with: a Neovim whose compiler plugin has
  // another (0.12's eslint reads the stylish form, 0.7's and 0.10's the compact one) is held
  // to the whole-log parse above only.
  const std::string expected_path = kLogs + "/" + recorded.name + ".expected.json";
  if (std::getenv("TOOLHOST_RECORD_QUICKFIX") && !items.empty()) {
    std::ofstream(expected_path) << json{{"efm", efm}, {"items", items}}.dump(1) << "\n";
  }
  json expected = json::parse(read(expected_path), nullptr, false);
  ASSERT_TRUE(expected.is_object()) << expected_path;
  if (expected["efm"] != efm) {
    GTEST_SKIP() << recorded.name << " was recorded with another 'errorformat' than " << efm;
  }
  EXPECT_FALSE(items.empty());
  EXPECT_EQ(json(items), expected["items"]) << json(items).dump(1);
}

INSTANTIATE_TEST_SUITE_P(
    Logs, QuickfixRecordedLog,
    ::testing::Values(Recorded{"gcc", "gcc -Wall -c a.c"}, Recorded{"cargo", "cargo build"},
                      Recorded{"rustc", "rustc main.rs"}, Recorded{"go", "go build ./..."},
                      Recorded{"tsc", "npx tsc --noEmit"},
                      Recorded{"eslint", "npx eslint --format compact src"},
                      Recorded{"eslint_stylish", "npx eslint src"}, Recorded{"jest", "npx jest"},
                      Recorded{"pytest", "python3 -m pytest"}, Recorded{"rg", "rg --vimgrep TODO"},
                      Recorded{"grep", "grep -rn TODO ."}),
    [](const ::testing::TestParamInfo<Recorded>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace toolhost::quickfix
