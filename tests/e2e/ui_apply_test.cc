// lua/toolhost/ui.lua applied to a real buffer with hand-made batches: the rules of SPEC 5
// that do not need a tool to run.
#include <gtest/gtest.h>

#include "e2e/nvim_harness.h"

namespace toolhost::e2e {
namespace {

using nlohmann::json;

class UiApply : public ::testing::Test {
 protected:
  void SetUp() override {
    buf_ = nvim_.lua("return vim.api.nvim_get_current_buf()").get<int64_t>();
  }
  void set_lines(const std::vector<std::string>& lines) {
    nvim_.request("nvim_buf_set_lines", json::array({buf_, 0, -1, false, lines}));
  }
  json apply(json buffer_entry, json top = json::object()) {
    buffer_entry["buf"] = buf_;
    top["buffers"] = json::array({buffer_entry});
    return nvim_.lua("return require('toolhost.ui').apply(...)", json::array({top}));
  }
  json mark(const std::string& key, int row, int last) {
    return {{"key", key}, {"row", row}, {"end_row", last}};
  }
  static json edit(const std::string& key, std::vector<std::string> expect,
                   std::vector<std::string> lines, std::vector<std::string> fallback,
                   const std::string& job, int insert_part = 0) {
    json e = {
        {"key", key}, {"expect", expect}, {"lines", lines}, {"fallback", fallback}, {"job", job}};
    if (insert_part) {
      // The keys of the lower parts (a, b, … for parts 1, 2, …), as the host names them.
      e["insert"] = true;
      e["after_keys"] = json::array();
      for (int part = 1; part < insert_part; ++part) {
        e["after_keys"].push_back(std::string(1, static_cast<char>('a' + part - 1)));
      }
    }
    return e;
  }
  static json list(json item) { return json::array({std::move(item)}); }
  json diagnostics() { return nvim_.lua("return vim.diagnostic.get(...)", json::array({buf_})); }

  NvimHarness nvim_;
  int64_t buf_ = 0;
};

const std::vector<std::string> kFence = {"```xml", "<tools/>", "```"};

std::vector<std::string> result(int part) {
  return {"````result id=th-" + std::to_string(part) +
              " tool=t status=succeeded exit=0 "
              "duration=0.01s part=" +
              std::to_string(part),
          "Exit code: 0", "````"};
}

TEST_F(UiApply, FencedResultsStayInCallOrderWhateverOrderJobsEnd) {
  set_lines({"## CodeCompanion", "```xml", "<tools/>", "```", "## Me"});
  apply({{"marks", json::array({mark("a", 1, 3), mark("b", 1, 3), mark("c", 1, 3)})}});
  // Part 3 ends first, then part 1, then part 2.
  for (int part : {3, 1, 2}) {
    std::string key(1, static_cast<char>('a' + part - 1));
    json out = apply({{"edits", list(edit(key, kFence, result(part), result(part),
                                          "th-" + std::to_string(part), part))}});
    EXPECT_EQ(out["edits"][0]["status"], "applied") << out;
  }
  std::vector<std::string> expected = {"## CodeCompanion", "```xml", "<tools/>", "```"};
  for (int part : {1, 2, 3}) {
    auto r = result(part);
    expected.insert(expected.end(), r.begin(), r.end());
  }
  expected.push_back("## Me");
  EXPECT_EQ(nvim_.lines(buf_), expected);
}

TEST_F(UiApply, ChangedBlockIsNotOverwrittenAndWarns) {
  set_lines({"A:", "**bash**", "```", "ls", "```"});
  json diag = {{"key", "k"}, {"row", 1}, {"severity", 3}, {"message", "✓ t (0.01s)"}};
  apply({{"marks", list(mark("k", 1, 4))}, {"diags", list(diag)}});
  nvim_.request("nvim_buf_set_lines", json::array({buf_, 3, 4, false, list("ls -la")}));
  json out = apply({{"edits", list(edit("k", {"**bash**", "```", "ls", "```"}, {"✓ Executed: `ls`"},
                                        {"Exit code: 0"}, "th-9"))}});
  EXPECT_EQ(out["edits"][0]["status"], "conflict");
  EXPECT_EQ(nvim_.lines(buf_)[3], "ls -la");
  json diags = diagnostics();
  ASSERT_EQ(diags.size(), 1u);
  EXPECT_EQ(diags[0]["severity"], 2);
  EXPECT_EQ(
      diags[0]["message"],
      "✓ t (0.01s) — result not written: the block changed while it ran (see :ToolOutput th-9)");
  // The result is shown under the block instead.
  json virt = nvim_.lua(R"(
    local buf = ...
    for _, m in ipairs(vim.api.nvim_buf_get_extmarks(buf, require("toolhost.ui").namespace, 0, -1, { details = true })) do
      if m[4].virt_lines then return m[4].virt_lines[1][1][1] end
    end
  )",
                        json::array({buf_}));
  EXPECT_EQ(virt, "Exit code: 0");
}

TEST_F(UiApply, WriteWaitsWhileBufferIsNotModifiable) {
  set_lines({"A:", "**bash**", "```", "ls", "```"});
  apply({{"marks", list(mark("k", 1, 4))}});
  nvim_.command("setlocal nomodifiable");
  json out = apply({{"edits", list(edit("k", {"**bash**", "```", "ls", "```"}, {"✓ Executed: `ls`"},
                                        {}, "th-1"))}});
  EXPECT_EQ(out["edits"][0]["status"], "waiting");
  EXPECT_EQ(nvim_.lines(buf_)[1], "**bash**");
  nvim_.command("setlocal modifiable");  // OptionSet retries the waiting rewrite
  EXPECT_EQ(nvim_.lines(buf_), (std::vector<std::string>{"A:", "✓ Executed: `ls`"}));
}

TEST_F(UiApply, DeletedBlockIsAConflictNotAnError) {
  set_lines({"A:", "**bash**", "```", "ls", "```", "tail"});
  apply({{"marks", list(mark("k", 1, 4))}});
  nvim_.request("nvim_buf_set_lines", json::array({buf_, 1, 5, false, json::array()}));
  json out =
      apply({{"edits", list(edit("k", {"**bash**", "```", "ls", "```"}, {"x"}, {}, "th-1"))}});
  EXPECT_EQ(out["edits"][0]["status"], "conflict");
  EXPECT_EQ(nvim_.lines(buf_), (std::vector<std::string>{"A:", "tail"}));
}

TEST_F(UiApply, BatchArrivingDuringAnotherIsAppliedAfterIt) {
  set_lines({"one", "two"});
  // An event handler of the first batch applies a second batch (re-entrancy).
  nvim_.lua(R"(
    local buf = ...
    vim.api.nvim_create_autocmd("User", { pattern = "First", once = true, callback = function()
      local answer = require("toolhost.ui").apply({ buffers = { { buf = buf, errors = { { row = 1, end_row = 2, message = "✗ second" } } } } })
      vim.g.nested_waited = answer.pending == true
    end })
  )",
            json::array({buf_}));
  json error = {{"row", 0}, {"end_row", 1}, {"message", "✗ first"}};
  json event = {{"name", "First"}, {"data", json::object()}};
  apply({{"errors", list(error)}}, {{"events", list(event)}});
  // The nested batch waited for the first one to finish, then replaced its errors.
  EXPECT_EQ(nvim_.lua("return vim.g.nested_waited"), true);
  json diags = diagnostics();
  ASSERT_EQ(diags.size(), 1u);
  EXPECT_EQ(diags[0]["message"], "✗ second");
}

TEST_F(UiApply, ExtmarkFollowsTheBlockThroughEdits) {
  set_lines({"A:", "**bash**", "```", "ls", "```"});
  apply({{"marks", list(mark("k", 1, 4))}});
  nvim_.request("nvim_buf_set_lines",
                json::array({buf_, 0, 0, false, json::array({"new", "lines"})}));
  json marks = nvim_.lua(R"(
    return vim.api.nvim_buf_get_extmarks(..., require("toolhost.ui").namespace, 0, -1, { details = true })
  )",
                         json::array({buf_}));
  ASSERT_EQ(marks.size(), 1u);
  EXPECT_EQ(marks[0][1], 3);
  EXPECT_EQ(marks[0][3]["end_row"], 6);
}

// The host reads a block's rows from its mirror, which lags behind the buffer: a mark may come
// after Lua wrote a result above the block, or after the user typed above it. It says the
// changedtick its rows were read at, and the changes made since move it onto its block.
TEST_F(UiApply, MarkReadBeforeChangesAboveItLandsOnItsBlock) {
  set_lines({"## A", "```xml", "<tools/>", "```", "## A", "```xml", "<tools/>", "```"});
  nvim_.lua("require('toolhost.reply').watch(...)", json::array({buf_}));  // as attached
  apply({{"marks", list(mark("a", 1, 3))}});
  json b = mark("b", 5, 7);  // read now, placed after the changes below
  b["tick"] = nvim_.request("nvim_buf_get_changedtick", json::array({buf_}));
  json out = apply({{"edits", list(edit("a", kFence, result(1), result(1), "th-1", 1))}});
  ASSERT_EQ(out["edits"][0]["status"], "applied") << out;
  nvim_.request("nvim_buf_set_lines", json::array({buf_, 0, 0, false, list("typed")}));
  nvim_.lua("require('toolhost.reply').skip_idle_check(...)", json::array({buf_}));  // no host

  apply({{"marks", list(b)}});
  out = apply({{"edits", list(edit("b", kFence, result(2), result(2), "th-2", 1))}});
  EXPECT_EQ(out["edits"][0]["status"], "applied") << out << diagnostics();
  std::vector<std::string> expected = {"typed", "## A", "```xml", "<tools/>", "```"};
  for (int part : {1, 2}) {
    auto r = result(part);
    expected.insert(expected.end(), r.begin(), r.end());
    if (part == 1) expected.insert(expected.end(), {"## A", "```xml", "<tools/>", "```"});
  }
  EXPECT_EQ(nvim_.lines(buf_), expected);
}

// A buffer still watched whose state was dropped (:ToolRestart forgets each buffer, then its
// attach fails) is no host's chat buffer: a change to it creates no state, which awaiting_count()
// and every walk over the states would see.
TEST_F(UiApply, ChangeToAWatchedBufferWithoutAStateCreatesNone) {
  set_lines({"## A", "```xml", "<tools/>", "```"});
  nvim_.lua("require('toolhost.reply').watch(...)", json::array({buf_}));
  nvim_.request("nvim_buf_set_lines", json::array({buf_, 0, 0, false, list("typed")}));
  EXPECT_EQ(nvim_.lua("return require('toolhost.blocks').get(...) == nil", json::array({buf_})),
            true);
}

// `all_jobs` replaces the job mirror wholesale before the same batch's `jobs` entries update
// single records; a job keeps the buffer this Neovim knew for it.
TEST_F(UiApply, AllJobsReplacesTheJobMirrorBeforeSingleUpdates) {
  apply(json::object(),
        {{"jobs", json::array({{{"id", "th-1"}, {"status", "running"}, {"buf", buf_}},
                               {{"id", "th-9"}, {"status", "running"}}})}});
  apply(json::object(), {{"all_jobs", json::array({{{"id", "th-1"}, {"status", "interrupted"}},
                                                   {{"id", "th-2"}, {"status", "succeeded"}}})},
                         {"jobs", json::array({{{"id", "th-2"}, {"status", "failed"}}})}});
  json jobs = nvim_.lua(R"(
    return vim.tbl_map(function(j) return { j.id, j.status, j.buf or vim.NIL } end,
                       require("toolhost").jobs({ all = true }))
  )");
  EXPECT_EQ(jobs, json::parse(R"([["th-2", "failed", null], ["th-1", "interrupted", )" +
                              std::to_string(buf_) + "]]"));
  // The statusline counts this Neovim's jobs (those with a buffer), not the whole history.
  EXPECT_EQ(nvim_.lua("return require('toolhost').statusline()"), "✗1");
}

// `all_jobs` in pages: each page's records land as it comes, the last drops the jobs no page
// named, and a record a `jobs` update brought after the first page wins over a later page's
// (a page is the host's list as setup() saw it).
TEST_F(UiApply, AllJobsPagesReplaceTheMirrorAndKeepNewerUpdates) {
  apply(json::object(),
        {{"jobs", json::array({{{"id", "th-3"}, {"status", "running"}, {"buf", buf_}},
                               {{"id", "th-8"}, {"status", "failed"}},
                               {{"id", "th-9"}, {"status", "failed"}, {"buf", buf_}}})}});
  auto ids_and_statuses = [&] {
    return nvim_.lua(R"(
      return vim.tbl_map(function(j) return { j.id, j.status } end,
                         require("toolhost").jobs({ all = true }))
    )");
  };
  apply(json::object(), {{"all_jobs", json::array({{{"id", "th-4"}, {"status", "running"}}})},
                         {"all_jobs_page", {{"first", true}, {"last", false}}}});
  // Paging: the first page is in, the old mirror's jobs stay until the last page.
  EXPECT_EQ(ids_and_statuses(),
            json::parse(R"([["th-9", "failed"], ["th-8", "failed"], ["th-4", "running"],
                              ["th-3", "running"]])"));
  apply(json::object(), {{"jobs", json::array({{{"id", "th-3"}, {"status", "succeeded"}},
                                               {{"id", "th-4"}, {"status", "succeeded"}}})}});
  apply(json::object(), {{"all_jobs", json::array({{{"id", "th-3"}, {"status", "running"}},
                                                   {{"id", "th-9"}, {"status", "failed"}},
                                                   {{"id", "th-1"}, {"status", "failed"}}})},
                         {"all_jobs_page", {{"first", false}, {"last", true}}}});
  EXPECT_EQ(ids_and_statuses(), json::parse(R"([["th-9", "failed"], ["th-4", "succeeded"],
                                               ["th-3", "succeeded"], ["th-1", "failed"]])"));
  EXPECT_EQ(nvim_.lua("return require('toolhost').job('th-9').buf"), buf_);
}

}  // namespace
}  // namespace toolhost::e2e
