// A project's MCP file runs only once accepted: the prompt, accept(), a change asking again,
// the state file; and SHA-256, which the acceptance rests on.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "mcp/project_trust.h"
#include "mcp/sha256.h"

namespace toolhost::mcp {
namespace {

namespace fs = std::filesystem;

TEST(McpSha256, KnownDigests) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  // 56 bytes: the length no longer fits the first padding block.
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256_hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

class McpProjectTrust : public ::testing::Test {
 protected:
  void SetUp() override {
    char name[] = "/tmp/th-mcp-trust-XXXXXX";
    dir_ = ::mkdtemp(name);
    places_ = {dir_ + "/config", dir_ + "/home", dir_ + "/proj"};
    fs::create_directories(places_.project_root);
    state_ = dir_ + "/state/nvim/toolhost";
  }
  void TearDown() override { fs::remove_all(dir_); }

  void write_project(const std::string& text) {
    std::ofstream(places_.project_root + "/.mcp.json") << text;
  }
  Configured load() {
    Lookup environment = [](const std::string& name) -> std::optional<std::string> {
      if (name == "TOKEN") return std::string("s3cret");
      return std::nullopt;
    };
    return load_servers({}, places_, environment);
  }
  std::vector<PendingFile> pending() { return pending_files(load(), load_acceptances(state_)); }

  std::string dir_;
  std::string state_;
  Places places_;
};

TEST_F(McpProjectTrust, AProjectFileIsPendingUntilAcceptedAndAgainWhenItsServersChange) {
  write_project(R"({"mcpServers": {"tools": {"command": "node", "args": ["server.js"]}}})");
  std::vector<PendingFile> first = pending();
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].file.path, places_.project_root + "/.mcp.json");
  EXPECT_FALSE(first[0].changed);
  EXPECT_EQ(first[0].servers, std::vector<std::string>{"tools"});

  std::string error;
  ASSERT_TRUE(accept(state_, first[0].file, first[0].digest, error)) << error;
  EXPECT_TRUE(pending().empty());
  struct stat info {};
  ASSERT_EQ(::stat(acceptances_path(state_).c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u);

  // Layout and comments do not count; what would run does.
  write_project(
      "// the same servers\n{ \"mcpServers\": { \"tools\": { \"args\": [\"server.js\"],"
      " \"command\": \"node\" } } }");
  EXPECT_TRUE(pending().empty());
  write_project(R"({"mcpServers": {"tools": {"command": "node", "args": ["evil.js"]}}})");
  std::vector<PendingFile> changed = pending();
  ASSERT_EQ(changed.size(), 1u);
  EXPECT_TRUE(changed[0].changed);
  EXPECT_NE(changed[0].prompt.find("changed since you accepted it"), std::string::npos);

  // Back to the accepted servers (another branch): accepted still.
  write_project(R"({"mcpServers": {"tools": {"command": "node", "args": ["server.js"]}}})");
  EXPECT_TRUE(pending().empty());
}

TEST_F(McpProjectTrust, UnacceptedServersAreHeldDisabledWithHowToAccept) {
  write_project(R"({"mcpServers": {"tools": {"command": "node"}}})");
  Configured configured = load();
  hold_unaccepted(configured, pending_files(configured, load_acceptances(state_)));
  ASSERT_EQ(configured.servers.size(), 1u);
  EXPECT_TRUE(configured.servers[0].disabled);
  EXPECT_EQ(configured.servers[0].error, kNotAccepted);
}

TEST_F(McpProjectTrust, TheHostsRoundTripFromPendingListToAcceptedServer) {
  write_project(R"({"mcpServers": {"tools": {"command": "node"}}})");
  Lookup nothing = [](const std::string&) -> std::optional<std::string> { return std::nullopt; };
  AcceptedServers loaded = load_accepted_servers({}, places_, state_, nothing);
  ASSERT_EQ(loaded.configured.servers.size(), 1u);
  EXPECT_TRUE(loaded.configured.servers[0].disabled);
  nlohmann::json list = pending_to_json(loaded.pending);  // what the Lua prompt gets
  ASSERT_EQ(list.size(), 1u);
  std::string path = places_.project_root + "/.mcp.json";
  EXPECT_EQ(list[0]["path"], path);
  EXPECT_EQ(list[0]["servers"], nlohmann::json::array({"tools"}));
  EXPECT_EQ(list[0]["changed"], false);
  EXPECT_EQ(list[0]["prompt"], loaded.pending[0].prompt);
  // What Lua answers: the path and the digest it showed.
  EXPECT_FALSE(project_file(places_, places_.config_home + "/toolhost/mcp.json").has_value());
  std::optional<ConfigFile> file = project_file(places_, list[0]["path"].get<std::string>());
  ASSERT_TRUE(file.has_value());
  std::string error;
  ASSERT_TRUE(accept(state_, *file, list[0]["digest"].get<std::string>(), error)) << error;
  AcceptedServers after = load_accepted_servers({}, places_, state_, nothing);
  EXPECT_FALSE(after.configured.servers.at(0).disabled);
  EXPECT_EQ(after.configured.servers.at(0).error, "");
  EXPECT_TRUE(after.pending.empty());
}

TEST_F(McpProjectTrust, ThePromptShowsEveryCommandLineUrlAndWhatIsNotUsed) {
  fs::create_directories(places_.config_home + "/toolhost");
  std::ofstream(places_.config_home + "/toolhost/mcp.json")
      << R"({"servers": {"git": {"command": "my-git"}}})";
  write_project(R"({"mcpServers": {
      "tools": {"command": "node", "args": ["srv.js", "a b", "${TOKEN}"], "env": {"K": "${TOKEN}"}},
      "web": {"type": "http", "url": "https://x.example/mcp", "headers": {"Authorization": "t"}},
      "git": {"command": "evil-git"},
      "bad": {"command": "x", "args": ["${input:key}"]}}})");
  std::vector<PendingFile> files = pending();
  ASSERT_EQ(files.size(), 1u);
  std::string root = places_.project_root;
  EXPECT_EQ(
      files[0].prompt,
      root +
          "/.mcp.json can start these MCP servers:\n"
          "  bad: x ${input:key}\n"
          "    in: " +
          root +
          "\n"
          "    cannot start: ${input:key} is a value VS Code asks for, which toolhost cannot: "
          "put it in the environment and write ${env:NAME}\n"
          "  git: not used: " +
          places_.config_home +
          "/toolhost/mcp.json configures \"git\" "
          "first\n"
          "  tools: node srv.js 'a b' ${TOKEN}\n"
          "    runs as: node srv.js 'a b' s3cret\n"
          "    env: K=${TOKEN}\n"
          "    in: " +
          root +
          "\n"
          "  web: https://x.example/mcp\n"
          "    headers: Authorization\n"
          "Accept this file? toolhost asks again when its servers change.");
}

TEST_F(McpProjectTrust, EntriesOfTheWrongShapeAreErrorsInThePromptNotCrashes) {
  write_project(R"({"mcpServers": {"a": 5, "b": {"command": 7, "args": "x", "env": [1]},
                                    "c": {"url": {"u": 1}}}})");
  std::vector<PendingFile> files = pending();
  ASSERT_EQ(files.size(), 1u);
  std::string root = places_.project_root;
  EXPECT_EQ(files[0].prompt, root +
                                 "/.mcp.json can start these MCP servers:\n"
                                 "  a: ''\n"
                                 "    cannot start: expected an object\n"
                                 "  b: 7 x\n"
                                 "    cannot start: command: expected a string\n"
                                 "  c: ''\n"
                                 "    cannot start: url: expected a string\n"
                                 "Accept this file? toolhost asks again when its servers "
                                 "change.");
}

TEST_F(McpProjectTrust, AFileWhoseEveryServerIsConfiguredFirstElsewhereAsksNothing) {
  fs::create_directories(places_.config_home + "/toolhost");
  std::ofstream(places_.config_home + "/toolhost/mcp.json")
      << R"({"servers": {"git": {"command": "my-git"}}})";
  write_project(R"({"mcpServers": {"git": {"command": "evil-git"}}})");
  EXPECT_TRUE(pending().empty());
  write_project(R"({"mcpServers": {"git": {"command": "evil-git"}, "new": {"command": "n"}}})");
  EXPECT_EQ(pending().size(), 1u);
}

TEST_F(McpProjectTrust, AcceptRefusesAFileThatChangedSinceThePrompt) {
  write_project(R"({"mcpServers": {"tools": {"command": "node"}}})");
  PendingFile shown = pending().at(0);
  write_project(R"({"mcpServers": {"tools": {"command": "rm"}}})");
  std::string error;
  EXPECT_FALSE(accept(state_, shown.file, shown.digest, error));
  EXPECT_EQ(error, shown.file.path + " changed since it was shown: review it again");
  EXPECT_EQ(pending().size(), 1u);
}

TEST_F(McpProjectTrust, AFileWithoutServersOrNotJsonAsksNothing) {
  write_project(R"({"mcpServers": {}})");
  EXPECT_TRUE(pending().empty());
  write_project("{ not json");
  EXPECT_TRUE(pending().empty());
  EXPECT_EQ(load().messages.size(), 1u);
}

TEST_F(McpProjectTrust, ABrokenStateFileAcceptsNothingAndIsReplacedByTheNextAccept) {
  write_project(R"({"mcpServers": {"tools": {"command": "node"}}})");
  fs::create_directories(state_);
  std::ofstream(acceptances_path(state_)) << "garbage";
  EXPECT_NE(load_acceptances(state_).error, "");
  PendingFile shown = pending().at(0);
  std::string error;
  ASSERT_TRUE(accept(state_, shown.file, shown.digest, error)) << error;
  EXPECT_EQ(load_acceptances(state_).error, "");
  EXPECT_TRUE(pending().empty());
}

TEST_F(McpProjectTrust, OnlyTheNewestDigestsOfAFileAreKept) {
  write_project(R"({"mcpServers": {"tools": {"command": "v0"}}})");
  PendingFile first = pending().at(0);
  std::string error;
  ASSERT_TRUE(accept(state_, first.file, first.digest, error));
  for (size_t i = 1; i <= kKeptDigests; ++i) {
    write_project(R"({"mcpServers": {"tools": {"command": "v)" + std::to_string(i) + R"("}}})");
    PendingFile next = pending().at(0);
    ASSERT_TRUE(accept(state_, next.file, next.digest, error));
  }
  EXPECT_EQ(load_acceptances(state_).digests.at(first.file.path).size(), kKeptDigests);
  write_project(R"({"mcpServers": {"tools": {"command": "v0"}}})");
  EXPECT_EQ(pending().size(), 1u);  // the oldest one was dropped
}

}  // namespace
}  // namespace toolhost::mcp
