// The socket directory and the host files `toolhost mcp serve` reads to find the Neovim host of
// its project: a real temporary directory, live hosts are UnixListeners on a test loop.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "jsonrpc/unix_listener.h"
#include "mcp/host_registry.h"
#include "test_loop.h"

namespace toolhost::mcp {
namespace {

namespace fs = std::filesystem;
using testing::TestLoop;

mode_t mode_of(const std::string& path) {
  struct stat info {};
  EXPECT_EQ(::lstat(path.c_str(), &info), 0) << path;
  return info.st_mode & 07777;
}

// Sets or clears XDG_RUNTIME_DIR for one test, and puts the old value back.
class RuntimeDirOverride {
 public:
  explicit RuntimeDirOverride(const char* value) {
    if (const char* old = std::getenv("XDG_RUNTIME_DIR")) old_ = old;
    if (value) {
      ::setenv("XDG_RUNTIME_DIR", value, 1);
    } else {
      ::unsetenv("XDG_RUNTIME_DIR");
    }
  }
  ~RuntimeDirOverride() {
    if (old_) {
      ::setenv("XDG_RUNTIME_DIR", old_->c_str(), 1);
    } else {
      ::unsetenv("XDG_RUNTIME_DIR");
    }
  }

 private:
  std::optional<std::string> old_;
};

class HostRegistry : public ::testing::Test {
 protected:
  void SetUp() override {
    char name[] = "/tmp/th-reg-XXXXXX";
    base_ = ::mkdtemp(name);
    dir_ = base_ + "/s";
    std::string error;
    ASSERT_TRUE(prepare_private_dir(dir_, error)) << error;
  }
  void TearDown() override {
    listeners_.clear();
    loop_.drain();
    fs::remove_all(base_);
  }

  // A host serving `root`: a listening socket and its published file.
  HostEntry live_host(const std::string& root, int pid) {
    HostEntry entry{root, dir_ + "/" + std::to_string(pid) + ".sock", pid, "1.2.3"};
    std::string error;
    auto listener = jsonrpc::UnixListener::listen(
        loop_.get(), entry.socket, [](std::unique_ptr<jsonrpc::Transport>) {}, error);
    EXPECT_TRUE(listener) << error;
    listeners_.push_back(std::move(listener));
    EXPECT_TRUE(publish(dir_, entry, error)) << error;
    return entry;
  }
  // A host that died without cleaning up: its file and a socket file nobody listens on.
  HostEntry dead_host(const std::string& root, int pid) {
    HostEntry entry{root, dir_ + "/" + std::to_string(pid) + ".sock", pid, "1.2.3"};
    int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::strcpy(address.sun_path, entry.socket.c_str());
    EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
    ::close(fd);
    std::string error;
    EXPECT_TRUE(publish(dir_, entry, error)) << error;
    return entry;
  }
  std::string json_of(int pid) { return dir_ + "/" + std::to_string(pid) + ".json"; }

  TestLoop loop_;
  std::string base_;
  std::string dir_;
  std::vector<std::unique_ptr<jsonrpc::UnixListener>> listeners_;
};

TEST_F(HostRegistry, TheSocketDirIsCreatedPrivateUnderTheStateDir) {
  RuntimeDirOverride runtime(nullptr);
  std::string error;
  auto dir = socket_dir(base_ + "/state", error, base_ + "/no-user-runtime");
  ASSERT_TRUE(dir) << error;
  EXPECT_EQ(*dir, base_ + "/state/sockets");
  EXPECT_EQ(mode_of(*dir), 0700u);
}

TEST_F(HostRegistry, TheRuntimeDirIsPreferredWhenItIsADirectory) {
  fs::create_directory(base_ + "/run");
  RuntimeDirOverride runtime((base_ + "/run").c_str());
  std::string error;
  auto dir = socket_dir(base_ + "/state", error);
  ASSERT_TRUE(dir) << error;
  EXPECT_EQ(*dir, base_ + "/run/toolhost");
  EXPECT_EQ(mode_of(*dir), 0700u);
}

TEST_F(HostRegistry, WithoutXdgRuntimeDirTheUsersRuntimeDirIsUsed) {
  RuntimeDirOverride runtime(nullptr);
  fs::create_directory(base_ + "/user-run");
  std::string error;
  auto dir = socket_dir(base_ + "/state", error, base_ + "/user-run");
  ASSERT_TRUE(dir) << error;
  EXPECT_EQ(*dir, base_ + "/user-run/toolhost");
  EXPECT_EQ(mode_of(*dir), 0700u);
}

TEST_F(HostRegistry, ARuntimeDirThatIsNoDirectoryIsIgnored) {
  RuntimeDirOverride runtime((base_ + "/missing").c_str());
  std::string error;
  auto dir = socket_dir(base_ + "/state", error, base_ + "/no-user-runtime");
  ASSERT_TRUE(dir) << error;
  EXPECT_EQ(*dir, base_ + "/state/sockets");
}

TEST_F(HostRegistry, AnExistingDirOthersCanReadIsRefusedNotRepaired) {
  std::string open_dir = base_ + "/open";
  fs::create_directory(open_dir);
  ::chmod(open_dir.c_str(), 0755);
  std::string error;
  EXPECT_FALSE(prepare_private_dir(open_dir, error));
  EXPECT_EQ(error, "the socket directory " + open_dir +
                       " has mode 0755: group and others must have no access (chmod 700 " +
                       open_dir + ")");
  EXPECT_EQ(mode_of(open_dir), 0755u);
}

TEST_F(HostRegistry, ASymlinkIsNotTakenForTheDirectory) {
  std::string link = base_ + "/link";
  fs::create_directory_symlink(dir_, link);
  std::string error;
  EXPECT_FALSE(prepare_private_dir(link, error));
  EXPECT_EQ(error, "the socket directory " + link + " is not a directory");
}

TEST_F(HostRegistry, ADirOwnedByAnotherUidIsRefused) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to give a directory to another uid";
  std::string theirs = base_ + "/theirs";
  fs::create_directory(theirs);
  ::chmod(theirs.c_str(), 0700);
  ASSERT_EQ(::chown(theirs.c_str(), 4242, 4242), 0);
  std::string error;
  EXPECT_FALSE(prepare_private_dir(theirs, error));
  EXPECT_EQ(error,
            "the socket directory " + theirs + " is owned by uid 4242, not 0: refusing to use it");
}

TEST_F(HostRegistry, ASocketPathLongerThanSunPathIsAnError) {
  std::string error;
  auto path = socket_path(base_ + "/" + std::string(110, 'd'), 123, error);
  EXPECT_FALSE(path);
  EXPECT_NE(error.find("socket path too long"), std::string::npos) << error;
  ASSERT_TRUE(socket_path(dir_, 123, error)) << error;
  EXPECT_EQ(*socket_path(dir_, 123, error), dir_ + "/123.sock");
}

TEST_F(HostRegistry, PublishWritesAPrivateFileWholeAndUnpublishRemovesIt) {
  std::string error;
  ASSERT_TRUE(publish(dir_, {"/p", dir_ + "/7.sock", 7, "0.9.0"}, error)) << error;
  EXPECT_EQ(mode_of(json_of(7)), 0600u);
  std::ifstream in(json_of(7));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, R"({"pid":7,"root":"/p","socket":")" + dir_ +
                      R"(/7.sock","version":"0.9.0"})"
                      "\n");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);
  ASSERT_TRUE(unpublish(dir_, 7, error)) << error;
  EXPECT_FALSE(fs::exists(json_of(7)));
  EXPECT_TRUE(unpublish(dir_, 7, error)) << "a missing file is not an error";
}

TEST_F(HostRegistry, TheDeepestRootServingTheWorkingDirectoryWins) {
  live_host(base_ + "/proj", 101);
  auto sub = live_host(base_ + "/proj/sub", 102);
  live_host(base_ + "/other", 103);
  auto found = find_host(dir_, base_ + "/proj/sub/deeper/still");
  ASSERT_TRUE(found);
  EXPECT_EQ(found->pid, 102);
  EXPECT_EQ(found->root, sub.root);
  EXPECT_EQ(found->socket, sub.socket);
  EXPECT_EQ(found->version, "1.2.3");
  ASSERT_TRUE(find_host(dir_, base_ + "/proj"));
  EXPECT_EQ(find_host(dir_, base_ + "/proj/")->pid, 101);
}

TEST_F(HostRegistry, ARootIsAnAncestorByWholeComponentsOnly) {
  live_host(base_ + "/a/b", 201);
  EXPECT_FALSE(find_host(dir_, base_ + "/a/bc"));
  EXPECT_FALSE(find_host(dir_, base_ + "/a"));
  EXPECT_TRUE(find_host(dir_, base_ + "/a/b/c"));
  EXPECT_TRUE(find_host(dir_, base_ + "/a/./b/../b"));
}

TEST_F(HostRegistry, OfTwoHostsOnOneRootTheNewestFileWins) {
  live_host(base_ + "/proj", 301);
  live_host(base_ + "/proj", 302);
  auto now = fs::file_time_type::clock::now();
  fs::last_write_time(json_of(301), now);
  fs::last_write_time(json_of(302), now - std::chrono::seconds(60));
  EXPECT_EQ(find_host(dir_, base_ + "/proj")->pid, 301);
  fs::last_write_time(json_of(302), now + std::chrono::seconds(60));
  EXPECT_EQ(find_host(dir_, base_ + "/proj")->pid, 302);
}

TEST_F(HostRegistry, ADeadHostIsCleanedUpAndTheNextCandidateServes) {
  live_host(base_ + "/proj", 401);
  auto dead = dead_host(base_ + "/proj/sub", 402);
  auto found = find_host(dir_, base_ + "/proj/sub");
  ASSERT_TRUE(found);
  EXPECT_EQ(found->pid, 401);
  EXPECT_FALSE(fs::exists(json_of(402)));
  EXPECT_FALSE(fs::exists(fs::symlink_status(dead.socket)));
}

TEST_F(HostRegistry, AHostWhoseSocketIsGoneIsCleanedUp) {
  std::string error;
  ASSERT_TRUE(publish(dir_, {base_ + "/proj", dir_ + "/501.sock", 501, "1"}, error)) << error;
  EXPECT_FALSE(find_host(dir_, base_ + "/proj"));
  EXPECT_FALSE(fs::exists(json_of(501)));
}

TEST_F(HostRegistry, AMalformedFileIsSkippedAndNamed) {
  live_host(base_ + "/proj", 601);
  { std::ofstream(dir_ + "/900.json") << "{not json"; }
  { std::ofstream(dir_ + "/901.json") << R"({"root":"relative/path","socket":"/x","pid":1})"; }
  { std::ofstream(dir_ + "/902.json") << R"({"root":"/","pid":"two"})"; }
  std::vector<std::string> warnings;
  auto found = find_host(dir_, base_ + "/proj", &warnings);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->pid, 601);
  ASSERT_EQ(warnings.size(), 3u);
  std::sort(warnings.begin(), warnings.end());
  EXPECT_EQ(warnings[0], "skipped " + dir_ + "/900.json: not a JSON object");
  EXPECT_EQ(warnings[1], "skipped " + dir_ + "/901.json: its root is not an absolute path");
  EXPECT_EQ(
      warnings[2],
      "skipped " + dir_ + "/902.json: it needs a string root, a string socket and an integer pid");
  EXPECT_TRUE(fs::exists(dir_ + "/900.json")) << "not ours to judge: left in place";
}

TEST_F(HostRegistry, NoHostIsNoneNotAnError) {
  EXPECT_FALSE(find_host(dir_, base_ + "/proj"));
  EXPECT_FALSE(find_host(base_ + "/no-such-dir", base_ + "/proj"));
}

TEST_F(HostRegistry, CheckSocketAcceptsALiveSocketOfOurs) {
  auto host = live_host(base_ + "/proj", 701);
  std::string error;
  EXPECT_TRUE(check_socket(host.socket, error)) << error;
}

TEST_F(HostRegistry, CheckSocketRefusesASocketOfAnotherUid) {
  auto host = live_host(base_ + "/proj", 702);
  std::string error;
  uid_t someone_else = ::geteuid() + 1;
  EXPECT_FALSE(check_socket(host.socket, someone_else, error));
  EXPECT_EQ(error, "socket " + host.socket + " is owned by uid " + std::to_string(::geteuid()) +
                       ", not " + std::to_string(someone_else) + ": refusing");
}

TEST_F(HostRegistry, CheckSocketNamesWhatIsWrongWithAPath) {
  std::string error;
  EXPECT_FALSE(check_socket(dir_ + "/none.sock", error));
  EXPECT_EQ(error, "no socket at " + dir_ + "/none.sock: No such file or directory");
  auto dead = dead_host(base_ + "/proj", 703);
  EXPECT_FALSE(check_socket(dead.socket, error));
  EXPECT_EQ(error, "cannot connect to " + dead.socket + ": Connection refused");
  EXPECT_FALSE(check_socket(json_of(703), error));
  EXPECT_EQ(error, json_of(703) + " is not a socket");
}

}  // namespace
}  // namespace toolhost::mcp
