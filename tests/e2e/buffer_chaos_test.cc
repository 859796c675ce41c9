// Buffer chaos (issue #19): 10,000 random edits through RPC while 50 jobs of :ToolRunAll run
// and end. The edits touch two zones, the user's question above the calls and the text below
// the last call; a model of each zone kept here must equal the buffer at the end, and every
// call must have its own result under it, or, for the calls whose block the test edited while
// they ran, keep the edit and get the conflict rule's WARN (SPEC 5).
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <set>

#include "e2e/chat_helpers.h"

namespace toolhost::e2e {
namespace {

using nlohmann::json;

constexpr int kCalls = 50;
constexpr int kEdits = 10000;
constexpr int kBatch = 100;                              // edits per nvim_exec_lua
const std::vector<int> kEditedCalls = {44, 46, 48, 49};  // their command is edited mid-run

// Lowercase letters and spaces: no zone line can become a role header, a fence or a call.
std::string random_text(std::mt19937& rng, size_t max_size) {
  static const char kAlphabet[] = "abcdefghijklmnopqrstuvwxyz    ";
  std::uniform_int_distribution<size_t> size(0, max_size);
  std::uniform_int_distribution<size_t> pick(0, sizeof kAlphabet - 2);
  std::string text(size(rng), ' ');
  for (char& c : text) c = kAlphabet[pick(rng)];
  return text;
}

// One zone of the buffer and the edits made to it; rows are relative to the zone.
struct Zone {
  Lines lines;

  // A random edit, applied to the model; the op for Lua (kApply).
  json edit(std::mt19937& rng, int zone) {
    auto below = [&](size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng); };
    json op = {{"z", zone}, {"n", lines.size()}};
    size_t r = below(lines.size());
    int kind = static_cast<int>(below(7));
    if (kind == 2 && lines.size() <= 5) kind = 0;                  // keep some
    if ((kind == 5 || kind == 1) && lines.size() >= 60) kind = 3;  // not too many
    if (kind == 6 && (lines.size() <= 5 || r + 1 >= lines.size())) kind = 4;
    std::string& line = lines[r];
    size_t c = below(line.size() + 1), e = c + below(line.size() - c + 1);
    op.update({{"k", kind}, {"r", r}, {"c", c}, {"e", e}});
    switch (kind) {
      case 0: op["t"] = line = random_text(rng, 40); break;
      case 1:
        op["t"] = random_text(rng, 40);
        lines.insert(lines.begin() + static_cast<long>(r), op["t"].get<std::string>());
        break;
      case 2: lines.erase(lines.begin() + static_cast<long>(r)); break;
      case 3:
        op["t"] = random_text(rng, 8);
        line.insert(c, op["t"].get<std::string>());
        break;
      case 4: line.erase(c, e - c); break;
      case 5: {
        std::string tail = line.substr(c);
        line.erase(c);
        lines.insert(lines.begin() + static_cast<long>(r) + 1, tail);
        break;
      }
      case 6:
        op["c"] = line.size();
        line += lines[r + 1];
        lines.erase(lines.begin() + static_cast<long>(r) + 1);
        break;
    }
    return op;
  }
};

// Applies ops: zone 0 starts at row 1 (under the question's header), zone 1 is the end of the
// buffer (nothing is ever written below it), `n` its size before the op.
constexpr const char* kApply = R"(
  local buf, ops = ...
  local api = vim.api
  for _, op in ipairs(ops) do
    local r = op.r + (op.z == 0 and 1 or api.nvim_buf_line_count(buf) - op.n)
    if op.k == 0 then api.nvim_buf_set_lines(buf, r, r + 1, true, { op.t })
    elseif op.k == 1 then api.nvim_buf_set_lines(buf, r, r, true, { op.t })
    elseif op.k == 2 then api.nvim_buf_set_lines(buf, r, r + 1, true, {})
    elseif op.k == 3 then api.nvim_buf_set_text(buf, r, op.c, r, op.c, { op.t })
    elseif op.k == 4 then api.nvim_buf_set_text(buf, r, op.c, r, op.e, { "" })
    elseif op.k == 5 then api.nvim_buf_set_text(buf, r, op.c, r, op.c, { "", "" })
    else api.nvim_buf_set_text(buf, r, op.c, r + 1, 0, { "" }) end
  end
)";

// Edits the command line of calls that have not ended yet; returns those it edited.
constexpr const char* kEditCalls = R"(
  local buf, numbers = ...
  local edited = {}
  for _, n in ipairs(numbers) do
    local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, true)
    for row, line in ipairs(lines) do
      if line == "echo out-" .. n then
        vim.api.nvim_buf_set_lines(buf, row - 1, row, true, { line .. " # edited" })
        edited[#edited + 1] = n
      end
    end
  end
  return edited
)";

Lines normalized_ids(Lines lines) {
  static const std::regex id("id=th-[0-9]+");
  Lines out = normalized(std::move(lines));
  for (auto& line : out) line = std::regex_replace(line, id, "id=X");
  return out;
}

TEST(BufferChaos, TenThousandEditsWhileFiftyJobsRunNeverClobberTextOrMisplaceAResult) {
  // TOOLHOST_CHAOS_SEED=N replays a failed run's edits (the jobs' timing still varies).
  const char* fixed = std::getenv("TOOLHOST_CHAOS_SEED");
  const unsigned seed = fixed && *fixed ? static_cast<unsigned>(std::strtoul(fixed, nullptr, 10))
                                        : std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed) + " (the edits are a function of it)");
  std::mt19937 rng(seed);
  NvimHarness nvim(json{{"confirm_run_all", false}, {"run_all", "parallel"}});
  nvim.forward_diagnostics();
  record_events(nvim, {"ToolhostJobFinished", "ToolhostAllDone"});
  nvim.lua(R"(
    _G.notified = {}  -- warnings and errors
    vim.notify = function(m, level)
      if (level or vim.log.levels.INFO) >= vim.log.levels.WARN then table.insert(_G.notified, m) end
    end
  )");

  Zone above, below;
  for (int i = 0; i < 20; ++i) above.lines.push_back("question line " + std::to_string(i));
  for (int i = 0; i < 20; ++i) below.lines.push_back("after the calls " + std::to_string(i));
  int64_t buf = open_chat(nvim, "chaos.chat.md", "USER: run fifty things");
  nvim.lua("vim.api.nvim_buf_set_lines(..., 1, 1, true, select(2, ...))",
           json::array({buf, above.lines}));
  std::vector<std::string> commands;
  for (int n = 0; n < kCalls; ++n) commands.push_back("echo out-" + std::to_string(n));
  Lines reply_lines = bash_reply(commands);
  reply_lines.push_back("");
  reply_lines.insert(reply_lines.end(), below.lines.begin(), below.lines.end());
  reply(nvim, buf, reply_lines, false);

  nvim.command("ToolRunAll");
  // Once a job has ended, every call has its job (the last ones queued: max_concurrent is 4);
  // editing a call before that would only make it a new pending call, never run.
  wait_event(nvim, "ToolhostJobFinished");
  json edited = nvim.lua(kEditCalls, json::array({buf, kEditedCalls}));
  int finished_during_edits = 0;
  for (int done = 0; done < kEdits; done += kBatch) {
    json ops = json::array();
    for (int i = 0; i < kBatch; ++i) {
      ops.push_back(std::bernoulli_distribution(0.5)(rng) ? above.edit(rng, 0)
                                                          : below.edit(rng, 1));
    }
    nvim.lua(kApply, json::array({buf, ops}));
  }
  finished_during_edits = nvim.lua("return _G.fired['ToolhostJobFinished'] or 0");
  try {
    for (int i = 1; i < kCalls; ++i) wait_event(nvim, "ToolhostJobFinished");
  } catch (const std::exception& e) {
    FAIL() << e.what() << ": " << nvim.lua("return _G.fired") << "\n"
           << text_of(nvim, buf).substr(0, 6000) << "\n" << barrier(nvim).dump();
  }
  barrier(nvim, buf);  // every result the host sent has been applied

  // The host is alive and said nothing alarming.
  EXPECT_EQ(nvim.lua("return vim.rpcrequest(require('toolhost.host').channel(), "
                     "'toolhost.ping').version")
                .is_string(),
            true);
  EXPECT_EQ(nvim.lua("return _G.notified"), json::array());

  // The zones hold exactly what the edits made of them.
  Lines lines = nvim.lines(buf);
  ASSERT_GT(lines.size(), above.lines.size() + below.lines.size() + 2);
  EXPECT_EQ(Lines(lines.begin() + 1, lines.begin() + 1 + static_cast<long>(above.lines.size())),
            above.lines);
  EXPECT_EQ(Lines(lines.end() - static_cast<long>(below.lines.size()), lines.end()), below.lines);

  // Between them, each call with its own result, or (edited mid-run) its edit and a WARN.
  Lines expected = {"ASSISTANT: Let me run these."};
  std::set<int> conflicted;
  for (const auto& n : edited) conflicted.insert(n.get<int>());
  for (int n = 0; n < kCalls; ++n) {
    std::string out = "out-" + std::to_string(n);
    if (conflicted.count(n)) {
      expected.insert(expected.end(),
                      {"", "**bash**", "```bash", "echo " + out + " # edited", "```"});
      continue;
    }
    expected.insert(expected.end(),
                    {"", "✓ Executed: `echo " + out + "`",
                     "````result id=X tool=run_terminal_command status=succeeded exit=0 "
                     "duration=D",
                     "Exit code: 0", "Stdout:", out, "````"});
  }
  expected.push_back("");
  Lines middle(lines.begin() + 1 + static_cast<long>(above.lines.size()),
               lines.end() - static_cast<long>(below.lines.size()));
  EXPECT_EQ(normalized_ids(middle), expected);

  // The conflicts' WARNs: the diagnostics' refresh may come a little after the last result
  // (refresh.lua coalesces them), so until there are as many as conflicts, each change is
  // awaited (forward_diagnostics; the wait throws after its timeout).
  auto conflict_warnings = [&] {
    std::vector<std::string> messages;
    for (const auto& d : diagnostics(nvim, buf)) {
      std::string message = d["message"];
      if (d["severity"] == 2 && message.find("result not written") != std::string::npos) {
        messages.push_back(message);
      }
    }
    return messages;
  };
  std::vector<std::string> warnings = conflict_warnings();
  try {
    while (warnings.size() < conflicted.size()) {
      nvim.wait_for("diagnostics");
      warnings = conflict_warnings();
    }
  } catch (const std::exception& e) {
    FAIL() << e.what() << ": the diagnostics " << diagnostics(nvim, buf).dump();
  }
  EXPECT_EQ(warnings.size(), conflicted.size());
  for (const auto& message : warnings) {
    EXPECT_NE(message.find("the block changed while it ran"), std::string::npos) << message;
  }
  std::cout << "[ figures  ] seed " << seed << ": " << kEdits << " edits applied, "
            << kCalls - conflicted.size() << " results landed, " << conflicted.size()
            << " conflicts (WARN, result kept in virt_lines), " << finished_during_edits
            << " jobs had ended when the last edit was made\n";
}

}  // namespace
}  // namespace toolhost::e2e
