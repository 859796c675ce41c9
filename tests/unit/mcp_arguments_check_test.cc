// Arguments against a tool's input schema: each misfit names its parameter.
#include <gtest/gtest.h>

#include "mcp/arguments_check.h"

namespace toolhost::mcp {
namespace {

using nlohmann::json;

const json kSchema = json::parse(R"({
  "type": "object",
  "properties": {
    "command": {"type": "string"},
    "timeout_ms": {"type": "integer", "minimum": 1},
    "mode": {"enum": ["a", "b"]},
    "paths": {"type": "array", "items": {"type": "string"}},
    "options": {"type": "object", "properties": {"deep": {"type": "boolean"}}, "required": ["deep"]}
  },
  "required": ["command"],
  "additionalProperties": false
})");

std::string misfit(const json& arguments) {
  auto error = check_arguments(kSchema, arguments);
  return error ? *error : "";
}

TEST(McpArgumentsCheck, FittingArgumentsPass) {
  EXPECT_EQ(misfit({{"command", "ls"}}), "");
  EXPECT_EQ(misfit({{"command", "ls"}, {"timeout_ms", 3.0}, {"mode", "b"}, {"paths", {"x"}}}), "");
  EXPECT_EQ(misfit({{"command", "ls"}, {"options", {{"deep", true}}}}), "");
}

TEST(McpArgumentsCheck, EachMisfitNamesItsParameter) {
  EXPECT_EQ(misfit(json::object()), "parameter \"command\" is required");
  EXPECT_EQ(misfit({{"command", 3}}), "parameter \"command\": expected string, got integer");
  EXPECT_EQ(misfit({{"command", "ls"}, {"timeout_ms", 1.5}}),
            "parameter \"timeout_ms\": expected integer, got number");
  EXPECT_EQ(misfit({{"command", "ls"}, {"timeout_ms", 0}}),
            "parameter \"timeout_ms\": must be at least 1");
  EXPECT_EQ(misfit({{"command", "ls"}, {"mode", "c"}}),
            "parameter \"mode\": must be one of [\"a\",\"b\"]");
  EXPECT_EQ(misfit({{"command", "ls"}, {"paths", {"x", 2}}}),
            "parameter \"paths[1]\": expected string, got integer");
  EXPECT_EQ(misfit({{"command", "ls"}, {"options", json::object()}}),
            "parameter \"options.deep\" is required");
  EXPECT_EQ(misfit({{"command", "ls"}, {"colour", "red"}}),
            "parameter \"colour\" is not known to this tool");
}

TEST(McpArgumentsCheck, MissingArgumentsAreAnEmptyObject) {
  EXPECT_EQ(*check_arguments(kSchema, nullptr), "parameter \"command\" is required");
  EXPECT_FALSE(check_arguments(json{{"type", "object"}}, nullptr));
}

// Seen while writing mcp_server_fuzz (whose UBSan stops on it): 1e300 was cast to long long to
// see whether it was whole, which is undefined behaviour, and on x86 read as not an integer.
TEST(McpArgumentsCheck, AHugeWholeNumberIsAnIntegerAndCastsNothing) {
  EXPECT_EQ(misfit({{"command", "ls"}, {"timeout_ms", 1e300}}), "");
  EXPECT_EQ(misfit({{"command", "ls"}, {"timeout_ms", -1e300}}),
            "parameter \"timeout_ms\": must be at least 1");
  EXPECT_EQ(misfit({{"command", "ls"}, {"timeout_ms", 2.5}}),
            "parameter \"timeout_ms\": expected integer, got number");
}

}  // namespace
}  // namespace toolhost::mcp
