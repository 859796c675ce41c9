// Tool schemas come from the tool table (one home): every tool is described, every required
// parameter has a schema, and the three shapes chat plugins send to models are right.
#include "core/tool_schema.h"

#include <gtest/gtest.h>

#include <sstream>

#include "cli/tools_command.h"
#include "core/custom_tool.h"
#include "mcp/arguments_check.h"

namespace toolhost::core {
namespace {

using nlohmann::json;

const ToolSpec& tool(const ToolTable& table, const char* name) {
  const ToolSpec* spec = table.find(name);
  EXPECT_NE(spec, nullptr) << name;
  return *spec;
}

TEST(ToolSchema, EveryBuiltinIsDescribedAndEveryRequiredParameterHasASchema) {
  for (const ToolSpec& spec : builtin_tool_table().tools) {
    EXPECT_FALSE(spec.description.empty()) << spec.name;
    json schema = input_schema(spec);
    for (const auto& name : spec.required) {
      ASSERT_TRUE(schema["properties"].contains(name)) << spec.name << "." << name;
      EXPECT_FALSE(schema["properties"][name]["description"].get<std::string>().empty());
    }
    for (const auto& [alias, canonical] : spec.param_aliases) {
      EXPECT_TRUE(schema["properties"].contains(canonical)) << spec.name << ": " << alias;
    }
  }
}

TEST(ToolSchema, ParametersHaveTheirTypesListsAndChoices) {
  ToolTable table = builtin_tool_table();
  json run = input_schema(tool(table, "run_terminal_command"));
  EXPECT_EQ(run["required"], json({"command"}));
  EXPECT_EQ(run["properties"]["timeout_ms"]["type"], "integer");
  EXPECT_EQ(run["additionalProperties"], false);
  json replace = input_schema(tool(table, "replace_in_file"));
  EXPECT_EQ(replace["properties"]["search"]["type"], "array");
  EXPECT_EQ(replace["properties"]["search"]["items"]["type"], "string");
  json edit = input_schema(tool(table, "edit_buffer"));
  EXPECT_EQ(edit["properties"]["buffer"]["type"], json({"string", "integer"}));
  EXPECT_EQ(edit["properties"]["action"]["enum"], json({"add", "update", "delete"}));
}

TEST(ToolSchema, TheSchemasAcceptWhatTheToolsTakeAndNameWhatTheyDoNot) {
  ToolTable table = builtin_tool_table();
  json run = input_schema(tool(table, "run_terminal_command"));
  EXPECT_FALSE(mcp::check_arguments(run, {{"command", "ls"}, {"timeout_ms", 500}}));
  EXPECT_EQ(*mcp::check_arguments(run, {{"cmd", "ls"}}), "parameter \"command\" is required");
  json replace = input_schema(tool(table, "replace_in_file"));
  EXPECT_FALSE(
      mcp::check_arguments(replace, {{"path", "a"}, {"search", {"x"}}, {"replace", {"y"}}}));
}

TEST(ToolSchema, EachFormatHasItsShape) {
  ToolTable table = builtin_tool_table();
  const ToolSpec& read = tool(table, "read_file");
  json openai = tool_json(read, SchemaFormat::kOpenAI);
  EXPECT_EQ(openai["type"], "function");
  EXPECT_EQ(openai["function"]["name"], "read_file");
  EXPECT_EQ(openai["function"]["parameters"]["type"], "object");
  json anthropic = tool_json(read, SchemaFormat::kAnthropic);
  EXPECT_EQ(anthropic["input_schema"]["required"], json({"path"}));
  json mcp = tool_json(read, SchemaFormat::kMcp);
  EXPECT_EQ(mcp["inputSchema"]["properties"]["path"]["type"], "string");
  EXPECT_EQ(mcp["annotations"]["readOnlyHint"], true);
  EXPECT_EQ(mcp["annotations"]["destructiveHint"], false);
  EXPECT_FALSE(schema_format("gemini"));
}

TEST(ToolSchema, AnnotationsAreHonest) {
  ToolTable table = builtin_tool_table();
  for (const char* name : {"read_file", "list_directory", "search_files"}) {
    EXPECT_EQ(annotations(tool(table, name))["readOnlyHint"], true) << name;
  }
  for (const char* name : {"create_or_replace_file", "replace_in_file", "delete_file", "move_file",
                           "edit_buffer", "run_terminal_command"}) {
    EXPECT_EQ(annotations(tool(table, name))["destructiveHint"], true) << name;
  }
  EXPECT_EQ(annotations(tool(table, "run_terminal_command"))["openWorldHint"], true);
}

TEST(ToolSchema, CustomToolsCarryTheirDescriptionAndParameters) {
  Config config;
  auto tools = custom_tools_from_json(json::parse(R"({"lint": {
    "cmd": ["make", "lint", "${target}"], "description": "Lints a target",
    "params": {"target": {"required": true, "description": "What to lint"}}}})"));
  ASSERT_TRUE(tools) << tools.error();
  config.tools = *tools;
  json lint = tools_json(tool_table_for(config), SchemaFormat::kAnthropic).back();
  EXPECT_EQ(lint["name"], "lint");
  EXPECT_EQ(lint["description"], "Lints a target");
  EXPECT_EQ(lint["input_schema"]["properties"]["target"]["description"], "What to lint");
  EXPECT_EQ(lint["input_schema"]["required"], json({"target"}));
  EXPECT_EQ(annotations(tool_table_for(config).tools.back())["destructiveHint"], true);
}

TEST(ToolsCommand, PrintsTheToolsAndRefusesAnUnknownFormat) {
  std::ostringstream out, err;
  ASSERT_EQ(cli::run_tools_command({"mcp", ""}, out, err), 0) << err.str();
  json tools = json::parse(out.str());
  EXPECT_EQ(tools.size(), builtin_tool_table().tools.size());
  EXPECT_TRUE(tools[0].contains("inputSchema"));

  std::ostringstream out2, err2;
  EXPECT_EQ(cli::run_tools_command({"gemini", ""}, out2, err2), 2);
  EXPECT_NE(err2.str().find("unknown format `gemini`"), std::string::npos);
}

}  // namespace
}  // namespace toolhost::core
