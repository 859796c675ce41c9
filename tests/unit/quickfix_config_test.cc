// setup()'s `quickfix` options and a custom tool's `quickfix` format, as the host reads them.
#include <gtest/gtest.h>

#include "core/config.h"

namespace toolhost::core {
namespace {

using nlohmann::json;

TEST(QuickfixConfig, DefaultsAndTheUsersValues) {
  auto defaults = config_from_json(json::object());
  ASSERT_TRUE(defaults);
  EXPECT_TRUE(defaults->quickfix.enabled);
  EXPECT_TRUE(defaults->quickfix.diagnostics);
  EXPECT_EQ(defaults->quickfix.max_items, 1000u);
  EXPECT_EQ(defaults->quickfix.max_files, 300u);
  auto config = config_from_json(json::parse(R"({"quickfix": {"enabled": false, "max_items": 5,
      "commands": {"mypy": {"efm": "%f:%l: %m"}, "just": {"compiler": "cargo"}, "make": false}}})"));
  ASSERT_TRUE(config) << config.error();
  EXPECT_FALSE(config->quickfix.enabled);
  EXPECT_EQ(config->quickfix.max_items, 5u);
  ASSERT_EQ(config->quickfix.commands.size(), 3u);
  json back = config_to_json(*config)["quickfix"]["commands"];
  EXPECT_EQ(back, json::parse(R"({"mypy": {"efm": "%f:%l: %m"}, "just": {"compiler": "cargo"},
                                  "make": false})"));
}

TEST(QuickfixConfig, BadValuesNameTheirKey) {
  EXPECT_EQ(config_from_json(json::parse(R"({"quickfix": {"max_items": 0}})")).error(),
            "quickfix: max_items and max_files: expected a whole number > 0");
  EXPECT_EQ(config_from_json(json::parse(R"({"quickfix": {"enabled": 1}})")).error(),
            "quickfix.enabled: expected a boolean");
  EXPECT_NE(
      config_from_json(json::parse(R"({"quickfix": {"commands": {"x": {"compiler": "a b"}}}})"))
          .error()
          .find("quickfix.commands.x: expected"),
      std::string::npos);
  EXPECT_NE(config_from_json(json::parse(R"({"quickfix": {"commands": {"x": {"efm": 3}}}})"))
                .error()
                .find("quickfix.commands.x"),
            std::string::npos);
}

TEST(QuickfixConfig, ACustomToolCarriesItsOwnFormat) {
  auto config = config_from_json(json::parse(R"({"tools": {
      "check": {"cmd": ["just", "check"], "quickfix": {"compiler": "tsc"}},
      "quiet": {"cmd": ["make"], "quickfix": false}}})"));
  ASSERT_TRUE(config) << config.error();
  for (const auto& tool : config->tools) {
    ASSERT_TRUE(tool.quickfix) << tool.name;
    if (tool.name == "check") {
      EXPECT_EQ(tool.quickfix->compiler, "tsc");
    } else {
      EXPECT_TRUE(tool.quickfix->off);
    }
    EXPECT_EQ(custom_tool_to_json(tool)["quickfix"], quickfix_format_to_json(*tool.quickfix));
  }
  EXPECT_FALSE(
      config_from_json(json::parse(R"({"tools": {"x": {"cmd": ["a"], "quickfix": true}}})")));
}

}  // namespace
}  // namespace toolhost::core
