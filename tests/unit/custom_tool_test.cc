// Custom tools in setup({ tools = … }) (SPEC 7): how the config reads them, what their
// templates declare, and what the parser's tool table requires of a call.
#include "core/custom_tool.h"

#include <gtest/gtest.h>

#include "core/config.h"
#include "core/tool_table.h"

namespace toolhost::core {
namespace {

using nlohmann::json;

Result<Config> with_tools(json tools) {
  return config_from_json(json{{"tools", std::move(tools)}});
}

const CustomTool& only_tool(const Result<Config>& config) {
  EXPECT_TRUE(config) << config.error();
  EXPECT_EQ(config->tools.size(), 1u);
  return config->tools.front();
}

TEST(CustomTool, CmdToolIsOneArgvTemplateWithItsOptions) {
  auto config = with_tools({{"lint",
                             {{"cmd", {"eslint", "--fix", "${file}"}},
                              {"description", "Lint a file"},
                              {"params", {{"file", {{"required", true}, {"description", "path"}}}}},
                              {"auto_accept", true},
                              {"timeout_ms", 5000},
                              {"cwd", "web"},
                              {"env", {{"CI", "1"}}}}}});
  const CustomTool& tool = only_tool(config);
  EXPECT_EQ(tool.name, "lint");
  EXPECT_EQ(tool.cmds, (std::vector<std::vector<std::string>>{{"eslint", "--fix", "${file}"}}));
  EXPECT_FALSE(tool.shell);
  EXPECT_FALSE(tool.fn);
  EXPECT_EQ(tool.description, "Lint a file");
  ASSERT_EQ(tool.params.size(), 1u);
  EXPECT_EQ(tool.params[0].name, "file");
  EXPECT_TRUE(tool.params[0].required);
  EXPECT_EQ(tool.params[0].description, "path");
  EXPECT_EQ(tool.auto_accept, CustomTool::AutoAccept::Yes);
  EXPECT_EQ(tool.timeout_ms, 5000u);
  EXPECT_EQ(tool.cwd, "web");
  EXPECT_EQ(tool.env, (std::vector<std::pair<std::string, std::string>>{{"CI", "1"}}));
}

TEST(CustomTool, CmdsFnAndShellToolsAreRead) {
  auto config = with_tools({{"build", {{"cmds", {{"make"}, {"make", "test"}}}}},
                            {"notes", {{"fn", true}, {"auto_accept", "function"}}},
                            {"count", {{"cmd", {"wc -l ${file} | sort"}}, {"shell", true}}}});
  ASSERT_TRUE(config) << config.error();
  ASSERT_EQ(config->tools.size(), 3u);
  const CustomTool& build = config->tools[0];
  EXPECT_EQ(build.name, "build");
  EXPECT_EQ(build.cmds, (std::vector<std::vector<std::string>>{{"make"}, {"make", "test"}}));
  EXPECT_EQ(build.auto_accept, CustomTool::AutoAccept::No);
  EXPECT_FALSE(build.timeout_ms);
  const CustomTool& count = config->tools[1];
  EXPECT_EQ(count.name, "count");
  EXPECT_TRUE(count.shell);
  const CustomTool& notes = config->tools[2];
  EXPECT_TRUE(notes.fn);
  EXPECT_TRUE(notes.cmds.empty());
  EXPECT_EQ(notes.auto_accept, CustomTool::AutoAccept::Function);
}

TEST(CustomTool, EachMistakeIsAnErrorNamingTheToolAndKey) {
  struct Case {
    const char* tools;  // JSON
    const char* error;
  };
  const Case cases[] = {
      {R"({"lint": {"cmd": ["x"], "command": "x"}})", "tools.lint: unknown key `command`"},
      {R"({"lint": {"cmd": ["x"], "cmds": [["x"]]}})",
       "tools.lint: give exactly one of `cmd`, `cmds` and `fn`"},
      {R"({"lint": {"cmd": ["x"], "fn": true}})",
       "tools.lint: give exactly one of `cmd`, `cmds` and `fn`"},
      {R"({"lint": {"description": "nothing to run"}})",
       "tools.lint: give exactly one of `cmd`, `cmds` and `fn`"},
      {R"({"lint": {"cmd": "eslint ."}})", "tools.lint.cmd: expected a non-empty list of strings"},
      {R"({"lint": {"cmd": []}})", "tools.lint.cmd: expected a non-empty list of strings"},
      {R"({"lint": {"cmd": ["eslint", 1]}})",
       "tools.lint.cmd: expected a non-empty list of strings"},
      {R"({"lint": {"cmds": ["make", "test"]}})",
       "tools.lint.cmds: expected a list of non-empty lists of strings"},
      {R"({"lint": {"cmds": [["make"]], "shell": true}})",
       "tools.lint.shell: only a `cmd` tool runs in a shell"},
      {R"({"lint": {"fn": true, "shell": true}})",
       "tools.lint.shell: only a `cmd` tool runs in a shell"},
      {R"({"lint": {"cmd": ["x"], "shell": "yes"}})", "tools.lint.shell: expected a boolean"},
      {R"({"lint": {"fn": "lint"}})", "tools.lint.fn: expected a Lua function"},
      {R"({"lint": {"cmd": ["x"], "timeout_ms": -5}})",
       "tools.lint.timeout_ms: expected a whole number >= 0"},
      {R"({"lint": {"cmd": ["x"], "cwd": 1}})", "tools.lint.cwd: expected a string"},
      {R"({"lint": {"cmd": ["x"], "env": {"A": 1}}})",
       "tools.lint.env: expected a table of strings"},
      {R"({"lint": {"cmd": ["x"], "auto_accept": "yes"}})",
       "tools.lint.auto_accept: expected a boolean or a Lua function"},
      {R"({"lint": {"cmd": ["x"], "params": {"file": {"required": "yes"}}}})",
       "tools.lint.params: expected `required` as a boolean"},
      {R"({"read_file": {"cmd": ["cat", "${path}"]}})",
       "tools.read_file: a built-in tool has this name"},
      {R"({"cmd_runner": {"cmd": ["sh"]}})", "tools.cmd_runner: a built-in tool has this name"},
      {R"({"my tool": {"cmd": ["x"]}})",
       "tools.my tool: a tool name is letters, digits, `_` and `-`"},
      {R"({"lint": "eslint"})", "tools.lint: expected a table"},
      {R"([1])", "tools: expected a table of name = spec"},
  };
  for (const auto& c : cases) {
    auto config = with_tools(json::parse(c.tools));
    ASSERT_FALSE(config) << c.tools;
    EXPECT_EQ(config.error(), c.error) << c.tools;
  }
}

TEST(CustomTool, LuasEmptyTableIsNoTools) {
  auto config = with_tools(json::array());
  ASSERT_TRUE(config) << config.error();
  EXPECT_TRUE(config->tools.empty());
}

TEST(CustomTool, PlaceholdersAreRequiredParamsUnlessDeclaredOptional) {
  auto config = with_tools(
      {{"grep_in",
        {{"cmds", {{"rg", "${pattern}", "${dir}"}, {"echo", "${pattern}-${flags}"}}},
         {"params", {{"dir", {{"required", false}}}, {"verbose", {{"description", "unused"}}}}}}}});
  const CustomTool& tool = only_tool(config);
  std::vector<std::pair<std::string, bool>> params;
  for (const auto& p : tool.params) params.emplace_back(p.name, p.required);
  // Declared first, then the placeholders not declared, in order of first use.
  EXPECT_EQ(params, (std::vector<std::pair<std::string, bool>>{
                        {"dir", false}, {"verbose", false}, {"pattern", true}, {"flags", true}}));
}

TEST(CustomTool, ToolTableRequiresTheRequiredParams) {
  auto config = with_tools(
      {{"deploy", {{"cmd", {"deploy", "${env}", "${tag}"}}, {"params", {{"tag", json::object()}}}}},
       {"notes", {{"fn", true}, {"params", {{"topic", {{"required", true}}}}}}}});
  ASSERT_TRUE(config) << config.error();
  ToolTable table = tool_table_for(*config);
  const ToolSpec* deploy = table.find("deploy");
  ASSERT_NE(deploy, nullptr);
  EXPECT_EQ(deploy->required, std::vector<std::string>{"env"});  // `tag` is declared optional
  const ToolSpec* notes = table.find("notes");
  ASSERT_NE(notes, nullptr);
  EXPECT_EQ(notes->required, std::vector<std::string>{"topic"});
  EXPECT_NE(table.find("read_file"), nullptr);  // the built-ins stay
  EXPECT_EQ(builtin_tool_table().find("deploy"), nullptr);
}

TEST(CustomTool, TemplatePiecesFollowThePlaceholderSyntax) {
  auto pieces = [](const std::string& element) {
    std::vector<std::string> out;
    for (const auto& p : template_pieces(element))
      out.push_back((p.placeholder ? "@" : "") + p.text);
    return out;
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(pieces("--file=${file}"), (V{"--file=", "@file"}));
  EXPECT_EQ(pieces("${a}${b-c}_${d_1}"), (V{"@a", "@b-c", "_", "@d_1"}));
  EXPECT_EQ(pieces("$${HOME}/${x}"), (V{"${HOME}/", "@x"}));   // `$${` is a literal `${`
  EXPECT_EQ(pieces("${} ${a b} ${x"), (V{"${} ${a b} ${x"}));  // not placeholders
  EXPECT_EQ(pieces("$HOME $$ ${HOME:-x}"), (V{"$HOME $$ ${HOME:-x}"}));
  EXPECT_TRUE(template_pieces("").empty());
}

TEST(CustomTool, ShellsOwnBracesAreNotParamsWhenEscaped) {
  auto config = with_tools({{"home", {{"cmd", {"echo $${HOME} ${x}"}}, {"shell", true}}}});
  const CustomTool& tool = only_tool(config);
  ASSERT_EQ(tool.params.size(), 1u);
  EXPECT_EQ(tool.params[0].name, "x");
}

TEST(CustomTool, PrintedToolsReadBackTheSame) {
  auto config =
      with_tools({{"build", {{"cmds", {{"make"}, {"make", "${target}"}}}}},
                  {"count", {{"cmd", {"wc -l ${f}"}}, {"shell", true}}},
                  {"lint", {{"cmd", {"eslint"}}, {"env", {{"CI", "1"}}}, {"cwd", "web"}}}});
  ASSERT_TRUE(config) << config.error();
  json printed = config_to_json(*config);
  auto again = config_from_json(printed);
  ASSERT_TRUE(again) << again.error();
  EXPECT_EQ(config_to_json(*again)["tools"], printed["tools"]);
}

}  // namespace
}  // namespace toolhost::core
