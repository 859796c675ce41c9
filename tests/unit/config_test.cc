// core::Config: the defaults of SPEC 8 and how setup()'s JSON is read.
#include "core/config.h"

#include <gtest/gtest.h>

namespace toolhost::core {
namespace {

using nlohmann::json;

TEST(Config, DefaultsAreSpec8s) {
  auto config = config_from_json(json::object());
  ASSERT_TRUE(config) << config.error();
  EXPECT_EQ(config->timeout_ms, 120000u);
  EXPECT_EQ(config->max_timeout_ms, 600000u);
  EXPECT_EQ(config->kill_grace_ms, 2000u);
  EXPECT_EQ(config->max_concurrent, 4);
  EXPECT_EQ(config->job_nice, 10);
  EXPECT_EQ(config->output.max_lines, 200u);
  EXPECT_EQ(config->output.stream_lines, 15u);
  EXPECT_EQ(config->output.stream_interval_ms, 100u);
  EXPECT_EQ(config->output.log_max_bytes, 64u * 1024 * 1024);
  EXPECT_EQ(config->history_max, 500u);
  EXPECT_EQ(config->roles.assistant,
            (std::vector<std::string>{"CodeCompanion", "Assistant", "ASSISTANT", "LLM"}));
  EXPECT_TRUE(config->shell == "bash" || config->shell == "sh") << config->shell;
}

TEST(Config, ReadsNestedOptionsAndKeepsTheRest) {
  auto config = config_from_json(json{{"timeout_ms", 5},
                                      {"output", {{"max_lines", 9}}},
                                      {"roles", {{"user", {"Boss"}}}},
                                      {"shell", "zsh"},
                                      {"unknown_option", true}});
  ASSERT_TRUE(config) << config.error();
  EXPECT_EQ(config->timeout_ms, 5u);
  EXPECT_EQ(config->output.max_lines, 9u);
  EXPECT_EQ(config->output.stream_lines, 15u);
  EXPECT_EQ(config->roles.user, std::vector<std::string>{"Boss"});
  EXPECT_EQ(config->roles.system, (std::vector<std::string>{"System", "SYSTEM"}));
  EXPECT_EQ(config->shell, "zsh");
}

TEST(Config, NullKeepsTheDefaultAndWholeFloatsCount) {
  // Lua's numbers may arrive as floats; nil arrives as null.
  auto config = config_from_json(json{{"timeout_ms", nullptr}, {"max_concurrent", 2.0}});
  ASSERT_TRUE(config) << config.error();
  EXPECT_EQ(config->timeout_ms, 120000u);
  EXPECT_EQ(config->max_concurrent, 2);
}

TEST(Config, AWrongTypeIsAnErrorNamingItsKey) {
  struct Case {
    json options;
    std::string error;
  };
  const Case cases[] = {
      {json{{"timeout_ms", "soon"}}, "timeout_ms: expected a whole number >= 0"},
      {json{{"timeout_ms", -1}}, "timeout_ms: expected a whole number >= 0"},
      {json{{"timeout_ms", 1.5}}, "timeout_ms: expected a whole number >= 0"},
      {json{{"timeout_ms", 1e300}}, "timeout_ms: expected a whole number >= 0"},
      {json{{"output", {{"max_lines", true}}}}, "output.max_lines: expected a whole number >= 0"},
      {json{{"roles", {{"user", "Me"}}}}, "roles.user: expected a list of strings"},
      {json{{"roles", {{"user", {"Me", 1}}}}}, "roles.user: expected a list of strings"},
      {json{{"shell", 3}}, "shell: expected a string"},
      {json{{"max_concurrent", 0}}, "max_concurrent: expected a number > 0"},
      {json{{"job_nice", 20}}, "job_nice: expected a number from 0 to 19"},
      {json{{"job_nice", -1}}, "job_nice: expected a number from 0 to 19"},
      {json::array({1, 2}), "options: expected a table"},
  };
  for (const auto& c : cases) {
    auto config = config_from_json(c.options);
    ASSERT_FALSE(config) << c.options;
    EXPECT_EQ(config.error(), c.error) << c.options;
  }
}

TEST(Config, PrintedDefaultsUseSetupsNamesAndLeaveTheShellOut) {
  json printed = config_to_json(Config{});
  EXPECT_FALSE(printed.contains("shell"));
  EXPECT_EQ(printed["output"]["log_max_bytes"], 64u * 1024 * 1024);
  EXPECT_EQ(printed["roles"]["user"], json::array({"Me", "User", "USER"}));
  // What is printed reads back as the same options.
  auto again = config_from_json(printed);
  ASSERT_TRUE(again) << again.error();
  json round_trip = config_to_json(*again);
  round_trip.erase("shell");
  EXPECT_EQ(round_trip, printed);
}

TEST(Config, ReadsTheAllowListAndAutoAcceptEdits) {
  auto config = config_from_json(
      json{{"auto_accept_edits", true},
           {"allow", {{"commands", {"ls", {{"words", "git  log"}, {"deny", {"--output"}}}}}}}});
  ASSERT_TRUE(config) << config.error();
  EXPECT_TRUE(config->auto_accept_edits);
  ASSERT_TRUE(config->allow_commands);
  ASSERT_EQ(config->allow_commands->size(), 2u);
  EXPECT_EQ((*config->allow_commands)[0].words, std::vector<std::string>{"ls"});
  EXPECT_EQ((*config->allow_commands)[1].words, (std::vector<std::string>{"git", "log"}));
  EXPECT_EQ((*config->allow_commands)[1].deny, std::vector<std::string>{"--output"});
  // Printed back in the same form (toolhost --print-config, the CLI's --config).
  auto again = config_from_json(config_to_json(*config));
  ASSERT_TRUE(again) << again.error();
  EXPECT_EQ((*again->allow_commands)[1].deny, std::vector<std::string>{"--output"});
  // Without a list, the built-in one applies.
  EXPECT_FALSE(config_from_json(json::object())->allow_commands);
}

TEST(Config, BadAllowEntriesAndAutoAcceptEditsAreNamed) {
  EXPECT_EQ(config_from_json(json{{"auto_accept_edits", "yes"}}).error(),
            "auto_accept_edits: expected a boolean");
  EXPECT_EQ(config_from_json(json{{"allow", {{"commands", "ls"}}}}).error(),
            "allow.commands: expected a list");
  EXPECT_EQ(config_from_json(json{{"allow", {{"commands", {5}}}}})
                .error()
                .rfind("allow.commands: expected \"cmd words\"", 0),
            0u);
  EXPECT_FALSE(config_from_json(json{{"allow", {{"commands", {""}}}}}));
}

}  // namespace
}  // namespace toolhost::core
