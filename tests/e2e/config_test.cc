// setup()'s options: one schema in lua/toolhost/config.lua, checked against the host's own
// defaults (`toolhost --print-config`) and against the options section of doc/toolhost.txt.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>

#include "e2e/nvim_harness.h"

namespace toolhost::e2e {
namespace {

using nlohmann::json;

// stdout of `command`; the test fails when it does not exit 0.
std::string run(const std::string& command) {
  std::string out;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) {
    ADD_FAILURE() << "cannot run " << command;
    return out;
  }
  char chunk[4096];
  size_t n;
  while ((n = std::fread(chunk, 1, sizeof chunk, pipe)) > 0) out.append(chunk, n);
  EXPECT_EQ(::pclose(pipe), 0) << command;
  return out;
}

// Every leaf of `value` by its dotted path ("output.max_lines").
void leaves(const json& value, const std::string& prefix, std::set<std::string>& out) {
  if (value.is_object()) {
    for (const auto& [key, item] : value.items()) leaves(item, prefix + key + ".", out);
  } else {
    out.insert(prefix.substr(0, prefix.size() - 1));
  }
}

std::string joined(const std::set<std::string>& names) {
  std::string text;
  for (const auto& name : names) text += (text.empty() ? "" : ", ") + name;
  return text;
}

// Lua's defaults of the options the host reads are the C++ defaults: same keys, same values.
TEST(ConfigSchema, HostOptionsDefaultsAreTheBinarysDefaults) {
  NvimHarness nvim;  // its setup() options are not the defaults; for_host() is given those
  json binary = json::parse(run(toolhost_binary() + " --print-config"));
  json lua = nvim.lua(R"(
    local config = require("toolhost.config")
    return config.for_host(config.defaults())
  )");
  std::set<std::string> in_binary, in_lua, only_binary, only_lua;
  leaves(binary, "", in_binary);
  leaves(lua, "", in_lua);
  for (const auto& name : in_binary) {
    if (!in_lua.count(name)) only_binary.insert(name);
  }
  for (const auto& name : in_lua) {
    if (!in_binary.count(name)) only_lua.insert(name);
  }
  EXPECT_TRUE(only_binary.empty()) << "only in --print-config: " << joined(only_binary);
  EXPECT_TRUE(only_lua.empty()) << "only in for_host(): " << joined(only_lua);
  // The one default Lua decides: the stream's width is the screen's, which the binary cannot see.
  EXPECT_EQ(lua["output"]["stream_width"], nvim.lua("return vim.o.columns"));
  EXPECT_EQ(binary["output"]["stream_width"], 0);
  lua["output"].erase("stream_width");
  binary["output"].erase("stream_width");
  EXPECT_EQ(lua, binary);
  EXPECT_FALSE(in_lua.empty());
}

// for_host() is what Lua sends with toolhost.setup: the user's values of the host's options.
TEST(ConfigSchema, ForHostCarriesTheUsersValuesOfHostOptionsOnly) {
  NvimHarness nvim(json{{"timeout_ms", 5000}, {"output", {{"max_lines", 40}}}, {"shell", "sh"}});
  json sent = nvim.lua("return require('toolhost.config').for_host()");
  EXPECT_EQ(sent["timeout_ms"], 5000);
  EXPECT_EQ(sent["shell"], "sh");
  EXPECT_EQ(sent["output"]["max_lines"], 40);
  EXPECT_EQ(sent["output"]["stream_lines"], 15);  // nested tables merge field by field
  EXPECT_FALSE(sent.contains("log_level"));       // Lua-only options stay in Lua
  EXPECT_FALSE(sent.contains("keymaps"));
  EXPECT_FALSE(sent.contains("binary"));
}

json validate(NvimHarness& nvim, const std::string& opts) {
  return nvim.lua("local merged, err = require('toolhost.config').validate(" + opts +
                  ") return { ok = merged ~= nil, err = err or vim.NIL }");
}

TEST(ConfigSchema, UnknownNestedKeyNamesItsFullPath) {
  NvimHarness nvim;
  EXPECT_EQ(validate(nvim, "{ output = { foo = 1 } }")["err"], "unknown option `output.foo`");
  EXPECT_EQ(validate(nvim, "{ keymaps = { bogus = 'x' } }")["err"],
            "unknown option `keymaps.bogus`");
  EXPECT_EQ(validate(nvim, "{ roles = { robot = { 'R2' } } }")["err"],
            "unknown option `roles.robot`");
  EXPECT_EQ(validate(nvim, "{ allow = { command = {} } }")["err"],
            "unknown option `allow.command`");
  EXPECT_EQ(validate(nvim, "{ no_such = 1 }")["err"], "unknown option `no_such`");
}

TEST(ConfigSchema, WrongTypeNamesPathAndExpectedType) {
  NvimHarness nvim;
  EXPECT_EQ(validate(nvim, "{ output = { max_lines = 'x' } }")["err"],
            "output.max_lines: expected a whole number > 0, got \"x\"");
  EXPECT_EQ(validate(nvim, "{ roles = { user = { 1 } } }")["err"],
            "roles.user: expected a list of strings, got a table");
  EXPECT_EQ(validate(nvim, "{ keymaps = { run = 1 } }")["err"],
            "keymaps.run: expected a string or false, got 1");
  EXPECT_EQ(validate(nvim, "{ keymaps = true }")["err"],
            "keymaps: expected a table or false, got true");
  EXPECT_EQ(validate(nvim, "{ auto_run = 'yes' }")["err"],
            "auto_run: expected a boolean or a function, got \"yes\"");
  EXPECT_EQ(validate(nvim, "{ shell = 1 }")["err"], "shell: expected a string, got 1");
  EXPECT_EQ(validate(nvim, "{ allow = { commands = 'ls' } }")["err"],
            "allow.commands: expected a list of commands, got \"ls\"");
  EXPECT_EQ(validate(nvim, "{ timeout_ms = -1 }")["err"],
            "timeout_ms: expected a whole number >= 0, got -1");
  EXPECT_EQ(validate(nvim, "{ run_all = 'random' }")["err"],
            "run_all: expected one of \"sequential\", \"parallel\", got \"random\"");
}

TEST(ConfigSchema, AcceptsEveryDocumentedShape) {
  NvimHarness nvim;
  for (const char* opts : {
           "{ keymaps = false }",
           "{ keymaps = { run = false, output = '<leader>o' } }",
           "{ auto_run = false }",
           "{ auto_run = function(buf) return buf > 0 end }",
           "{ shell = 'sh', root = '/tmp', binary = '/bin/true' }",
           "{ allow = { commands = { 'ls', { 'git log', deny = { '-c' } } } } }",
           "{ allow = {} }",
           "{ tools = { lint = { cmd = { 'make', 'lint' } } } }",
           "{ roles = { user = { 'Human' } } }",
           "{ timeout_ms = 0 }",
       }) {
    json result = validate(nvim, opts);
    EXPECT_EQ(result["ok"], true) << opts << ": " << result["err"];
  }
}

TEST(ConfigSchema, NestedOptionsMergeFieldByFieldAndListsReplace) {
  NvimHarness nvim;
  json merged = nvim.lua(R"(
    local m = require("toolhost.config").validate({
      roles = { user = { "Human" } }, keymaps = { run = false }, chat_filetypes = { "chat" } })
    return { roles = m.roles, keymaps = m.keymaps, chat_filetypes = m.chat_filetypes }
  )");
  EXPECT_EQ(merged["roles"]["user"], json::array({"Human"}));
  EXPECT_EQ(merged["roles"]["system"], json::array({"System", "SYSTEM"}));
  EXPECT_EQ(merged["keymaps"]["run"], false);
  EXPECT_EQ(merged["keymaps"]["cancel"], "<leader>tc");
  EXPECT_EQ(merged["chat_filetypes"], json::array({"chat"}));
}

TEST(ConfigSchema, SetupReportsAnInvalidOptionAndKeepsThePreviousOnes) {
  NvimHarness nvim(json{{"timeout_ms", 5000}});
  json result = nvim.lua(R"(
    local notes = {}
    local notify = vim.notify
    vim.notify = function(msg, level) notes[#notes + 1] = { msg = msg, level = level } end
    local ok = require("toolhost").setup({ output = { stream_lines = 0 } })
    vim.notify = notify
    return { ok = ok, notes = notes, timeout_ms = require("toolhost.config").options.timeout_ms }
  )");
  EXPECT_EQ(result["ok"], false);
  ASSERT_EQ(result["notes"].size(), 1u) << result.dump();
  EXPECT_EQ(result["notes"][0]["msg"],
            "toolhost.setup: output.stream_lines: expected a whole number > 0, got 0");
  EXPECT_EQ(result["notes"][0]["level"], 4);
  EXPECT_EQ(result["timeout_ms"], 5000);
}

// doc/toolhost.txt holds the options section scripts/gen-doc writes from the schema: every
// option, its default, type and description.
TEST(ConfigSchema, DocOptionsSectionIsGeneratedFromTheSchema) {
  NvimHarness nvim;
  json rendered = nvim.lua("return dofile(... .. '/scripts/options_doc.lua').render()",
                           json::array({TOOLHOST_SOURCE_DIR}));
  std::string section;
  for (const auto& line : rendered) section += line.get<std::string>() + "\n";
  std::ifstream in(TOOLHOST_SOURCE_DIR "/doc/toolhost.txt");
  std::stringstream doc;
  doc << in.rdbuf();
  EXPECT_NE(doc.str().find(section), std::string::npos)
      << "doc/toolhost.txt is out of date; run scripts/gen-doc. Expected section:\n"
      << section;
  // And the renderer covers every option of the schema.
  json missing = nvim.lua(R"(
    local text = table.concat(dofile(... .. "/scripts/options_doc.lua").render(), "\n")
    local missing = {}
    local function walk(entries, prefix)
      for _, e in ipairs(entries) do
        if not text:find("\n  " .. prefix .. e.name .. " ", 1, true)
            and not text:find("\n  " .. prefix .. e.name .. "\n", 1, true) then
          missing[#missing + 1] = prefix .. e.name
        end
        if e.fields then walk(e.fields, prefix .. e.name .. ".") end
      end
    end
    walk(require("toolhost.config").schema, "")
    return missing
  )",
                          json::array({TOOLHOST_SOURCE_DIR}));
  EXPECT_TRUE(missing.empty()) << missing.dump();
}

}  // namespace
}  // namespace toolhost::e2e
