// Which configured MCP server is toolhost's own `mcp serve` (server/self_server.h), on real
// files: the executable, a symlink to it, a bare name found in a PATH, another program.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "server/self_server.h"

namespace toolhost::server {
namespace {

namespace fs = std::filesystem;

class SelfServer : public ::testing::Test {
 protected:
  void SetUp() override {
    char name[] = "/tmp/th-self-XXXXXX";
    dir_ = ::mkdtemp(name);
    self_ = dir_ + "/build/toolhost-host";
    fs::create_directories(dir_ + "/build");
    fs::create_directories(dir_ + "/bin");
    for (const std::string& file : {self_, dir_ + "/bin/other"}) {
      std::ofstream(file) << "#!/bin/sh\n";
      ::chmod(file.c_str(), 0755);
    }
    fs::create_symlink(self_, dir_ + "/bin/th");
  }
  void TearDown() override { fs::remove_all(dir_); }

  static mcp::StdioSpec spec(std::string command, std::vector<std::string> args = {"mcp", "serve"}) {
    mcp::StdioSpec s;
    s.command = std::move(command);
    s.args = std::move(args);
    return s;
  }

  std::string dir_;
  std::string self_;
};

TEST_F(SelfServer, ThisExecutableByPathSymlinkOrPathLookupIsItself) {
  const std::string path = "/nonexistent:" + dir_ + "/bin";
  EXPECT_TRUE(starts_toolhost_serve(spec(self_), self_, path));
  EXPECT_TRUE(starts_toolhost_serve(spec(dir_ + "/bin/th"), self_, path));
  EXPECT_TRUE(starts_toolhost_serve(spec("th"), self_, path));
}

TEST_F(SelfServer, AnyProgramNamedToolhostServingIsItself) {
  EXPECT_TRUE(starts_toolhost_serve(spec("toolhost"), self_, ""));
  EXPECT_TRUE(starts_toolhost_serve(spec("/opt/other/toolhost"), self_, ""));
}

TEST_F(SelfServer, OtherProgramsAndOtherSubcommandsAreNot) {
  const std::string path = dir_ + "/bin";
  EXPECT_FALSE(starts_toolhost_serve(spec("other"), self_, path));
  EXPECT_FALSE(starts_toolhost_serve(spec("th", {"mcp", "list"}), self_, path));
  EXPECT_FALSE(starts_toolhost_serve(spec("toolhost", {"serve"}), self_, path));
  EXPECT_FALSE(starts_toolhost_serve(spec("missing"), self_, path));
}

}  // namespace
}  // namespace toolhost::server
