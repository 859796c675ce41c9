// Hostile chat text through Neovim (issue #19): a 50 MB buffer of 100k blocks, deeply nested
// XML, entity expansion (billion laughs, an external entity), JSON nested 10,000 deep, a block
// inside a block. Each gives calls or ERROR diagnostics, never a crash or a hang; the host
// answers a ping while it parses, and Neovim's round trip is measured (reported, not asserted:
// the machine is shared and the sanitizer build is slow).
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>

#include "e2e/chat_helpers.h"

namespace toolhost::e2e {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

int64_t host_pid(NvimHarness& nvim) {
  return nvim.lua("return vim.fn.jobpid(require('toolhost.host').channel())");
}

// Starts the host (it starts on first use) and returns its pid: a crash would change it.
int64_t started_host_pid(NvimHarness& nvim) {
  nvim.lua("require('toolhost.host').ensure()");
  return host_pid(nvim);
}

// What the host made of the buffer: its pending calls (run_all_plan) and the ERROR
// diagnostics shown.
struct Outcome {
  size_t calls = 0;
  std::vector<std::string> errors;
};

Outcome outcome(NvimHarness& nvim, int64_t buf) {
  nvim.listen("plan");
  nvim.lua(R"(
    local chan, buf = ...
    require("toolhost.host").call("toolhost.run_all_plan", { buf = buf }, function(err, plan)
      vim.rpcnotify(chan, "plan", { err = err or vim.NIL, calls = plan and #plan.calls or 0 })
    end)
  )",
           json::array({nvim.channel(), buf}));
  json plan = nvim.wait_for("plan", std::chrono::seconds(120));
  if (!plan["err"].is_null()) throw std::runtime_error("plan: " + plan["err"].dump());
  barrier(nvim, buf);  // the diagnostics that came with it are applied
  Outcome out;
  out.calls = plan["calls"];
  for (const auto& d : diagnostics(nvim, buf)) {
    if (d["severity"] == 1) out.errors.push_back(d["message"]);
  }
  return out;
}

// A chat buffer (CodeCompanion headers) whose reply is `body`.
int64_t open_reply(NvimHarness& nvim, const std::string& name, const Lines& body) {
  int64_t buf = open_chat(nvim, name, "## Me");
  Lines lines = {"", "what now?", "", "## CodeCompanion (Copilot)", ""};
  lines.insert(lines.end(), body.begin(), body.end());
  reply(nvim, buf, lines, true);
  return buf;
}

TEST(HostileChat, FiftyMegabytesOfHundredThousandBlocksParseWhileNeovimAndTheHostAnswer) {
  NvimHarness nvim;
  const int64_t pid_before = started_host_pid(nvim);
  const std::string path = nvim.temp_dir() + "/huge.chat.md";
  {
    std::ofstream out(path);
    out << "USER: run them all\nASSISTANT: here they are\n";
    const std::string pad(420, 'p');
    for (int i = 0; i < 100000; ++i) {
      out << "Block " << i << ":\n**bash**\n```bash\necho " << i << ' ' << pad << "\n```\n\n";
    }
  }
  nvim.lua(R"(
    _G.parsed, _G.pinged = nil, nil
    local host = require("toolhost.host")
    vim.cmd("edit " .. ...)
    local buf = vim.api.nvim_get_current_buf()
    local start = vim.loop.hrtime()
    host.call("toolhost.ping", {}, function(err)
      _G.pinged = { err = err or vim.NIL, ms = (vim.loop.hrtime() - start) / 1e6 }
    end)
    host.call("toolhost.run_all_plan", { buf = buf }, function(err, plan)
      _G.parsed = { err = err or vim.NIL, calls = plan and #plan.calls or 0,
                    ms = (vim.loop.hrtime() - start) / 1e6 }
    end)
  )",
           json::array({path}));
  // Round trips through Neovim's main loop until the host has read the buffer.
  double worst_ms = 0;
  int trips = 0;
  json parsed;
  for (auto until = Clock::now() + std::chrono::minutes(3); Clock::now() < until;) {
    auto start = Clock::now();
    parsed = nvim.lua("return _G.parsed");
    worst_ms =
        std::max(worst_ms, std::chrono::duration<double, std::milli>(Clock::now() - start).count());
    ++trips;
    if (!parsed.is_null()) break;
    nvim.request("nvim_eval", json::array({"1"}));
  }
  ASSERT_FALSE(parsed.is_null()) << "the host never answered for the 50 MB buffer";
  EXPECT_TRUE(parsed["err"].is_null()) << parsed.dump();
  EXPECT_EQ(parsed["calls"], 100000);
  json pinged = nvim.lua("return _G.pinged");
  ASSERT_FALSE(pinged.is_null());
  EXPECT_TRUE(pinged["err"].is_null()) << pinged.dump();
  EXPECT_EQ(host_pid(nvim), pid_before);
  std::cout << "[ figures  ] 50 MB / 100k blocks: host read it in " << parsed["ms"]
            << " ms, ping answered after " << pinged["ms"] << " ms, worst Neovim round trip "
            << worst_ms << " ms over " << trips << " trips\n";
}

TEST(HostileChat, DeeplyNestedXmlIsACallOrAnError) {
  NvimHarness nvim;
  Lines body = {"```xml", "<tools>", "<tool name=\"cmd_runner\">"};
  const int depth = 100000;
  std::string open, close;
  for (int i = 0; i < depth; ++i) open += "<a>";
  for (int i = 0; i < depth; ++i) close += "</a>";
  body.insert(body.end(), {"<action><command>" + open + "x" + close + "</command></action>",
                           "</tool>", "</tools>", "```"});
  int64_t pid = started_host_pid(nvim);
  int64_t buf = open_reply(nvim, "nested.chat.md", body);
  Outcome out = outcome(nvim, buf);
  EXPECT_GT(out.calls + out.errors.size(), 0u);
  EXPECT_EQ(host_pid(nvim), pid);
  std::cout << "[ figures  ] XML 100,000 deep: " << out.calls << " call(s), " << out.errors.size()
            << " error(s)" << (out.errors.empty() ? "" : ": " + out.errors[0].substr(0, 200))
            << "\n";
}

TEST(HostileChat, XmlEntitiesAreNeverExpanded) {
  NvimHarness nvim(json{{"confirm_run_all", false}});
  record_events(nvim, {"ToolhostJobFinished"});
  Lines body = {"```xml", "<?xml version=\"1.0\"?>", "<!DOCTYPE tools ["};
  body.push_back("<!ENTITY lol0 \"lollollollollollollollollollol\">");
  for (int i = 1; i <= 9; ++i) {
    std::string entity = "<!ENTITY lol" + std::to_string(i) + " \"";
    for (int k = 0; k < 10; ++k) entity += "&lol" + std::to_string(i - 1) + ";";
    body.push_back(entity + "\">");
  }
  // With its DOCTYPE first this fence is no candidate (SPEC 3.1: it does not start with
  // <tools or <tool), so it is text; the second one refers to the same entities from a call.
  body.insert(body.end(),
              {"<!ENTITY xxe SYSTEM \"file:///etc/passwd\">", "]>", "<tools>",
               "<tool name=\"files\">", "<action type=\"read\"><path>&lol9;</path></action>",
               "<action type=\"read\"><path>&xxe;</path></action>", "</tool>", "</tools>", "```",
               "", "```xml", "<tools>", "<tool name=\"files\">",
               "<action type=\"read\"><path>&lol9;</path></action>",
               "<action type=\"read\"><path>&xxe;</path></action>", "</tool>", "</tools>", "```"});
  int64_t pid = started_host_pid(nvim);
  int64_t buf = open_reply(nvim, "entities.chat.md", body);
  Outcome out = outcome(nvim, buf);
  ASSERT_GT(out.calls + out.errors.size(), 0u);
  if (out.calls > 0) {
    // Whatever they read, it is not an expansion: run them and look at the results.
    nvim.command("ToolRunAll");
    for (size_t i = 0; i < out.calls; ++i) wait_event(nvim, "ToolhostJobFinished");
    barrier(nvim, buf);
  }
  std::string text = text_of(nvim, buf);
  EXPECT_EQ(text.find("root:"), std::string::npos) << text;
  EXPECT_EQ(text.find("lollollollollollollollollollollollol"), std::string::npos);
  EXPECT_LT(text.size(), 20000u);
  for (const auto& error : out.errors) EXPECT_EQ(error.find("root:"), std::string::npos);
  EXPECT_EQ(host_pid(nvim), pid);
  std::cout << "[ figures  ] entities: " << out.calls << " call(s), " << out.errors.size()
            << " error(s)" << (out.errors.empty() ? "" : ": " + out.errors[0].substr(0, 200))
            << "\n";
}

TEST(HostileChat, JsonNestedTenThousandDeepIsAnError) {
  NvimHarness nvim;
  std::string deep = std::string(10000, '[') + std::string(10000, ']');
  Lines body = {"```json",
                "{\"tool\": \"run_terminal_command\", \"parameters\": {\"command\": \"ls\", "
                "\"deep\": " +
                    deep + "}}",
                "```"};
  int64_t pid = started_host_pid(nvim);
  int64_t buf = open_reply(nvim, "deep.chat.md", body);
  Outcome out = outcome(nvim, buf);
  EXPECT_EQ(out.calls, 0u);
  ASSERT_EQ(out.errors.size(), 1u);
  EXPECT_EQ(host_pid(nvim), pid);
  std::cout << "[ figures  ] JSON 10,000 deep: " << out.errors[0] << "\n";
}

TEST(HostileChat, BlockInsideABlockIsCallsOrErrors) {
  NvimHarness nvim;
  Lines body = {"```xml",     "<tools><tool name=\"cmd_runner\"><action><command>",
                "```json",    "{\"tool\": \"read_file\", \"parameters\": {\"path\": \"x\"}}",
                "```",        "</command></action></tool></tools>",
                "```",        "",
                "**bash**",   "````bash",
                "**bash**",   "```bash",
                "echo inner", "```",
                "````"};
  int64_t pid = started_host_pid(nvim);
  int64_t buf = open_reply(nvim, "nested-blocks.chat.md", body);
  Outcome out = outcome(nvim, buf);
  EXPECT_GT(out.calls + out.errors.size(), 0u);
  EXPECT_EQ(host_pid(nvim), pid);
  std::cout << "[ figures  ] block in a block: " << out.calls << " call(s), " << out.errors.size()
            << " error(s)\n";
}

}  // namespace
}  // namespace toolhost::e2e
