// A server asking the user in the middle of a call (`elicitation/create`, issue #27), end to
// end: a real headless Neovim, the real host, and the project's fake stdio server
// (tests/fixtures/mcp/fake_server.sh, mode "elicit"), whose `ask` tool asks for a form (name,
// age, color, subscribe) and returns the answer it got, "Answer: {...}". vim.ui.select and
// vim.ui.input are replaced by stubs that answer from a script and record their prompts.
#include <gtest/gtest.h>

#include <string>

#include "e2e/chat_helpers.h"
#include "e2e/mcp_helpers.h"

namespace toolhost::e2e {
namespace {

using nlohmann::json;

json elicit_host_options() {
  json fake = {{"command", "sh"},
               {"args", {TOOLHOST_FIXTURES "/mcp/fake_server.sh", "elicit"}},
               {"auto_approve", {"ask"}}};
  return json{
      {"auto_run", true}, {"auto_run_idle_ms", 600000}, {"mcp", {{"servers", {{"fake", fake}}}}}};
}

// Both kinds of stub answer a vim.ui.select by the item shown as `want` (none: no answer).
void define_choose_shown(NvimHarness& nvim) {
  nvim.lua(R"(
    _G.choose_shown = function(items, opts, want, on_choice)
      for _, item in ipairs(items) do
        local shown = opts.format_item and opts.format_item(item) or item
        if shown == want then return on_choice(item) end
      end
      on_choice(nil)
    end
  )");
}

// The stubs answer in turn from `script`: a select takes the item shown as the next answer, an
// input the next answer; past its end, no answer (<Esc>). Each prompt (an input's with "|" and its
// default) goes to _G.prompts. A UI is pretended: mcp_elicit asks.
void answer_with(NvimHarness& nvim, const json& script) {
  define_choose_shown(nvim);
  nvim.lua(R"(
    local script = ...
    _G.prompts = {}
    local function next_answer() return table.remove(script, 1) end
    vim.ui.select = function(items, opts, on_choice)
      table.insert(_G.prompts, opts.prompt)
      _G.choose_shown(items, opts, next_answer(), on_choice)
    end
    vim.ui.input = function(opts, on_confirm)
      table.insert(_G.prompts, opts.prompt .. "|" .. (opts.default or ""))
      on_confirm(next_answer())
    end
    require("toolhost.mcp_elicit").can_ask = function() return true end
  )",
           json::array({script}));
}

// Calls fake__ask from the chat (auto-approved) and returns the buffer once it has finished.
std::string ask_from_chat(NvimHarness& nvim, int64_t buf, const json& arguments) {
  reply(nvim, buf, json_call_block("fake__ask", arguments));
  json finished = wait_event(nvim, "ToolhostJobFinished");
  EXPECT_EQ(finished["status"], "succeeded") << finished;
  barrier(nvim, buf);
  return text_of(nvim, buf);
}

// Waits until the server listed its tools (fake__ask is in the table).
void wait_for_ask(NvimHarness& nvim) {
  const char* listed = R"(
    for _, t in ipairs(require("toolhost").tools({ format = "mcp" }) or {}) do
      if t.name == "fake__ask" then return true end
    end
    return false
  )";
  while (!nvim.lua(listed).get<bool>()) wait_event(nvim, "ToolhostToolsChanged");
}

TEST(McpElicit, TheUserAnswersEachFieldInNeovimAndTheServerGetsTheContentADeclineOrACancel) {
  NvimHarness nvim(elicit_host_options());
  record_events(nvim, {"ToolhostToolsChanged", "ToolhostJobFinished"});
  wait_for_ask(nvim);
  int64_t buf = open_chat(nvim, "ask.chat.md");
  // Fields in the order the server wrote them (not name order): name, age (a word first: asked
  // again), color, subscribe.
  answer_with(nvim, {"Answer", "Ada", "old", "41", "Red", "yes"});
  std::string text = ask_from_chat(nvim, buf, json::object());
  EXPECT_NE(text.find(R"(Answer: "result":{"action":"accept","content":{"age":41,"color":"red",)"
                      R"("name":"Ada","subscribe":true}})"),
            std::string::npos)
      << text;
  json prompts = nvim.lua("return _G.prompts");
  ASSERT_EQ(prompts.size(), 6u) << prompts;
  EXPECT_EQ(prompts[0], "MCP server fake asks: Who are you?");
  EXPECT_EQ(prompts[1], "fake: Your name [name]: |you");
  EXPECT_EQ(prompts[2], "fake: age (optional): |30");
  EXPECT_EQ(prompts[3], prompts[2]) << "a word is no integer: age is asked again";
  EXPECT_EQ(prompts[4], "fake: color");
  EXPECT_EQ(prompts[5], "fake: subscribe");

  answer_with(nvim, {"Decline"});
  text = ask_from_chat(nvim, buf, {{"again", true}});
  EXPECT_NE(text.find(R"(Answer: "result":{"action":"decline"})"), std::string::npos) << text;

  answer_with(nvim, {"Answer"});  // then <Esc> at the first field: no answer
  text = ask_from_chat(nvim, buf, {{"again", 2}});
  EXPECT_NE(text.find(R"(Answer: "result":{"action":"cancel"})"), std::string::npos) << text;
}

// Keeps Neovim's own vim.ui.input (input(), which on 0.7.2 gives on_confirm nil for an empty
// line as for <Esc>): the first select also types `keys`, which the inputs then read, as typed
// keys (feedkeys' "t": an <Esc> not typed runs the command line, :help c_<Esc>). The selects
// answer from `selects`; the warnings go to _G.warnings.
void type_into_inputs(NvimHarness& nvim, const json& selects, const std::string& keys) {
  define_choose_shown(nvim);
  nvim.lua(R"(
    local script, keys = ...
    _G.warnings = {}
    vim.notify = function(text) table.insert(_G.warnings, text) end
    vim.ui.select = function(items, opts, on_choice)
      if keys then
        vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(keys, true, false, true), "nt", false)
        keys = nil
      end
      _G.choose_shown(items, opts, table.remove(script, 1), on_choice)
    end
    require("toolhost.mcp_elicit").can_ask = function() return true end
  )",
           json::array({selects, keys}));
}

TEST(McpElicit, WithNeovimsOwnInputAnEmptyLineLeavesAnOptionalFieldOutAndEscCancels) {
  NvimHarness nvim(elicit_host_options());
  record_events(nvim, {"ToolhostToolsChanged", "ToolhostJobFinished"});
  wait_for_ask(nvim);
  int64_t buf = open_chat(nvim, "ask.chat.md");
  // name: empty (required: asked again); age: a hex number (asked again), then empty: left out.
  type_into_inputs(nvim, {"Answer", "Red", "no (default)"},
                   "<C-u><CR><C-u>Bob<CR><C-u>0x1F<CR><C-u><CR>");
  std::string text = ask_from_chat(nvim, buf, json::object());
  EXPECT_NE(text.find(R"(Answer: "result":{"action":"accept","content":{"color":"red",)"
                      R"("name":"Bob","subscribe":false}})"),
            std::string::npos)
      << text;
  json warnings = nvim.lua("return _G.warnings");
  EXPECT_EQ(warnings, json::array({"toolhost: fake: name is required",
                                   R"(toolhost: fake: age: "0x1F" is not a number)"}));

  type_into_inputs(nvim, {"Answer"}, "<Esc>");
  text = ask_from_chat(nvim, buf, {{"again", true}});
  EXPECT_NE(text.find(R"(Answer: "result":{"action":"cancel"})"), std::string::npos) << text;
}

TEST(McpElicit, AHeadlessNeovimAnswersWithTheFormsDefaultsWithoutAsking) {
  NvimHarness nvim(elicit_host_options());
  record_events(nvim, {"ToolhostToolsChanged", "ToolhostJobFinished"});
  nvim.lua(R"(
    _G.asked = 0
    vim.ui.select = function() _G.asked = _G.asked + 1 end
    vim.ui.input = vim.ui.select
  )");
  wait_for_ask(nvim);
  int64_t buf = open_chat(nvim, "ask.chat.md");
  std::string text = ask_from_chat(nvim, buf, json::object());
  EXPECT_NE(text.find(R"(Answer: "result":{"action":"accept","content":{"age":30,)"
                      R"("color":"green","name":"you","subscribe":false}})"),
            std::string::npos)
      << text;
  EXPECT_EQ(nvim.lua("return _G.asked"), 0);
}

}  // namespace
}  // namespace toolhost::e2e
