#include "mcp/host_registry.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace toolhost::mcp {
namespace fs = std::filesystem;
namespace {

std::string octal_mode(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777));
  return text;
}

std::string entry_file(const std::string& dir, int pid) {
  return dir + "/" + std::to_string(pid) + ".json";
}

// 0 when a server accepts a connection at `path`, else the errno of the attempt. The probe
// connection is closed at once: the host sees a client that says nothing and leaves.
int connect_errno(const std::string& path) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);  // the caller checked the length
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return errno;
  int rc = ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
  int result = rc == 0 ? 0 : errno;
  ::close(fd);
  return result;
}

// Absolute, with `.`, `..` and symlinks resolved as far as the path exists, so that a root and
// a working directory reached by different spellings compare equal. Empty for a relative path.
fs::path normalize(const std::string& text) {
  fs::path path(text);
  if (!path.is_absolute()) return {};
  std::error_code ec;
  fs::path resolved = fs::weakly_canonical(path, ec);
  if (ec) resolved = path.lexically_normal();
  if (resolved.filename().empty() && resolved != resolved.root_path()) {
    resolved = resolved.parent_path();  // "/a/b/" -> "/a/b"
  }
  return resolved;
}

// Components, not characters: /a/b contains /a/b/c but not /a/bc.
bool is_same_or_ancestor(const fs::path& root, const fs::path& path) {
  auto [root_end, path_at] = std::mismatch(root.begin(), root.end(), path.begin(), path.end());
  return root_end == root.end();
}

size_t depth(const fs::path& path) {
  return static_cast<size_t>(std::distance(path.begin(), path.end()));
}

bool owned_socket(const std::string& path, uid_t uid, std::string& why) {
  struct stat info {};
  if (::lstat(path.c_str(), &info) != 0) {
    why = "no socket at " + path + ": " + std::strerror(errno);
    return false;
  }
  if (!S_ISSOCK(info.st_mode)) {
    why = path + " is not a socket";
    return false;
  }
  if (info.st_uid != uid) {
    why = "socket " + path + " is owned by uid " + std::to_string(info.st_uid) + ", not " +
          std::to_string(uid) + ": refusing";
    return false;
  }
  return true;
}

void remove_socket_file(const std::string& path) {
  struct stat info {};
  // Only a socket of ours: an entry could name any path, and we remove nothing else.
  if (::lstat(path.c_str(), &info) == 0 && S_ISSOCK(info.st_mode) && info.st_uid == ::geteuid()) {
    ::unlink(path.c_str());
  }
}

struct Candidate {
  HostEntry entry;
  std::string file;
  size_t depth = 0;
  fs::file_time_type written;
};

std::optional<HostEntry> read_entry(const std::string& file, std::string& why) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  if (!in) {
    why = "cannot read it";
    return std::nullopt;
  }
  auto json = nlohmann::json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (!json.is_object()) {
    why = "not a JSON object";
    return std::nullopt;
  }
  HostEntry entry;
  auto root = json.find("root");
  auto socket = json.find("socket");
  auto pid = json.find("pid");
  if (root == json.end() || !root->is_string() || socket == json.end() || !socket->is_string() ||
      pid == json.end() || !pid->is_number_integer()) {
    why = "it needs a string root, a string socket and an integer pid";
    return std::nullopt;
  }
  entry.root = root->get<std::string>();
  entry.socket = socket->get<std::string>();
  entry.pid = pid->get<int>();
  if (auto version = json.find("version"); version != json.end() && version->is_string()) {
    entry.version = version->get<std::string>();
  }
  if (!fs::path(entry.root).is_absolute()) {
    why = "its root is not an absolute path";
    return std::nullopt;
  }
  return entry;
}

bool process_alive(int pid) {
  return pid > 0 && ::kill(pid, 0) == 0;
}

}  // namespace

bool fits_socket_address(const std::string& path, std::string& error) {
  if (path.size() < sizeof(sockaddr_un{}.sun_path)) return true;
  error = "socket path too long (" + std::to_string(path.size()) + " bytes, at most " +
          std::to_string(sizeof(sockaddr_un{}.sun_path) - 1) + "): " + path +
          "; set $XDG_RUNTIME_DIR or a shorter state directory";
  return false;
}

bool prepare_private_dir(const std::string& dir, std::string& error) {
  struct stat info {};
  if (::lstat(dir.c_str(), &info) != 0) {
    if (errno != ENOENT) {
      error = "cannot inspect the socket directory " + dir + ": " + std::strerror(errno);
      return false;
    }
    std::error_code ec;
    fs::create_directories(fs::path(dir).parent_path(), ec);
    if (::mkdir(dir.c_str(), 0700) == 0) {
      ::chmod(dir.c_str(), 0700);  // the umask may have taken owner bits; ours, so ours to set
    } else if (errno != EEXIST) {  // EEXIST: another process made it; checked below like any
      error = "cannot create the socket directory " + dir + ": " + std::strerror(errno);
      return false;
    }
    if (::lstat(dir.c_str(), &info) != 0) {
      error = "cannot inspect the socket directory " + dir + ": " + std::strerror(errno);
      return false;
    }
  }
  if (!S_ISDIR(info.st_mode)) {
    error = "the socket directory " + dir + " is not a directory";
    return false;
  }
  if (info.st_uid != ::geteuid()) {
    error = "the socket directory " + dir + " is owned by uid " + std::to_string(info.st_uid) +
            ", not " + std::to_string(::geteuid()) + ": refusing to use it";
    return false;
  }
  if ((info.st_mode & 077) != 0) {
    error = "the socket directory " + dir + " has mode " + octal_mode(info.st_mode) +
            ": group and others must have no access (chmod 700 " + dir + ")";
    return false;
  }
  return true;
}

std::string user_runtime_dir() {
  return "/run/user/" + std::to_string(::geteuid());
}

std::optional<std::string> socket_dir(const std::string& state_dir, std::string& error,
                                      const std::string& user_runtime) {
  std::string dir;
  const char* runtime = std::getenv("XDG_RUNTIME_DIR");
  struct stat info {};
  if (runtime != nullptr && *runtime != '\0' && ::stat(runtime, &info) == 0 &&
      S_ISDIR(info.st_mode)) {
    dir = std::string(runtime) + "/toolhost";
  } else if (::stat(user_runtime.c_str(), &info) == 0 && S_ISDIR(info.st_mode) &&
             info.st_uid == ::geteuid()) {
    dir = user_runtime + "/toolhost";
  } else if (!state_dir.empty()) {
    dir = state_dir + "/sockets";
  } else {
    error = "no directory for sockets: neither $XDG_RUNTIME_DIR nor a state directory is set";
    return std::nullopt;
  }
  if (!prepare_private_dir(dir, error)) return std::nullopt;
  return dir;
}

std::optional<std::string> socket_path(const std::string& dir, int pid, std::string& error) {
  std::string path = dir + "/" + std::to_string(pid) + ".sock";
  if (!fits_socket_address(path, error)) return std::nullopt;
  return path;
}

bool publish(const std::string& dir, const HostEntry& entry, std::string& error) {
  nlohmann::json json = {{"root", entry.root},
                         {"socket", entry.socket},
                         {"pid", entry.pid},
                         {"version", entry.version}};
  std::string text = json.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  std::string target = entry_file(dir, entry.pid);
  // A dot name without .json: find_host never reads a half-written file.
  std::string temp = dir + "/." + std::to_string(entry.pid) + ".json.tmp";
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) {
    error = "cannot write " + temp + ": " + std::strerror(errno);
    return false;
  }
  ::fchmod(fd, 0600);  // a leftover temp file keeps its old mode through O_TRUNC
  bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  int write_errno = errno;
  ::close(fd);
  if (!written || ::rename(temp.c_str(), target.c_str()) != 0) {
    error = "cannot write " + target + ": " + std::strerror(written ? errno : write_errno);
    ::unlink(temp.c_str());
    return false;
  }
  return true;
}

bool unpublish(const std::string& dir, int pid, std::string& error) {
  std::string file = entry_file(dir, pid);
  if (::unlink(file.c_str()) != 0 && errno != ENOENT) {
    error = "cannot remove " + file + ": " + std::strerror(errno);
    return false;
  }
  return true;
}

std::optional<HostEntry> find_host(const std::string& dir, const std::string& cwd,
                                   std::vector<std::string>* warnings) {
  auto warn = [&](std::string message) {
    if (warnings) warnings->push_back(std::move(message));
  };
  fs::path here = normalize(cwd);
  if (here.empty()) return std::nullopt;
  std::vector<Candidate> candidates;
  std::error_code ec;
  for (const auto& item : fs::directory_iterator(dir, ec)) {
    const fs::path& file = item.path();
    std::string name = file.filename().string();
    if (name.empty() || name[0] == '.' || file.extension() != ".json") continue;
    std::string why;
    auto entry = read_entry(file.string(), why);
    if (!entry) {
      warn("skipped " + file.string() + ": " + why);
      continue;
    }
    fs::path root = normalize(entry->root);
    if (!is_same_or_ancestor(root, here)) continue;
    std::error_code time_error;
    auto written = fs::last_write_time(file, time_error);
    candidates.push_back({std::move(*entry), file.string(), depth(root), written});
  }
  std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
    return a.depth != b.depth ? a.depth > b.depth : a.written > b.written;
  });
  for (const auto& candidate : candidates) {
    const HostEntry& entry = candidate.entry;
    std::string why;
    if (!fits_socket_address(entry.socket, why)) {
      warn("skipped " + candidate.file + ": " + why);
      continue;
    }
    bool stale = false;
    if (owned_socket(entry.socket, ::geteuid(), why)) {
      int failure = connect_errno(entry.socket);
      if (failure == 0) return entry;
      why = "cannot connect to " + entry.socket + ": " + std::strerror(failure);
      stale = failure == ECONNREFUSED || failure == ENOENT || !process_alive(entry.pid);
    } else {
      // No socket file at all means the host is gone; someone else's socket is left alone.
      struct stat info {};
      stale = ::lstat(entry.socket.c_str(), &info) != 0 && errno == ENOENT;
    }
    if (stale) {
      ::unlink(candidate.file.c_str());
      remove_socket_file(entry.socket);
    } else {
      warn("skipped " + candidate.file + ": " + why);
    }
  }
  return std::nullopt;
}

bool check_socket(const std::string& path, uid_t expected_uid, std::string& error) {
  if (!fits_socket_address(path, error) || !owned_socket(path, expected_uid, error)) return false;
  if (int failure = connect_errno(path)) {
    error = "cannot connect to " + path + ": " + std::strerror(failure);
    return false;
  }
  return true;
}

bool check_socket(const std::string& path, std::string& error) {
  return check_socket(path, ::geteuid(), error);
}

}  // namespace toolhost::mcp
