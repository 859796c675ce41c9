#pragma once
// Where `toolhost mcp serve` finds the Neovim host serving its project (SPEC 13.5): each host
// listens on a unix socket in a private directory and writes `{pid}.json` next to it naming its
// project root and socket. The agent's side picks the host whose root is the deepest ancestor
// of its working directory, and cleans up after hosts that died without doing so.
//
// Errors are values: a bool or an empty optional, with the message a user reads in `error`.

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

namespace toolhost::mcp {

struct HostEntry {
  std::string root;    // the project root the host serves, absolute
  std::string socket;  // the path it listens on
  int pid = 0;
  std::string version;  // toolhost's version in that host
};

// `/run/user/{euid}`, where systemd keeps the user's runtime directory.
std::string user_runtime_dir();

// The directory of sockets and host files: `$XDG_RUNTIME_DIR/toolhost` when XDG_RUNTIME_DIR is
// set and names a directory, else `{user_runtime}/toolhost` when that directory is ours (an
// agent may start `toolhost mcp serve` without XDG_RUNTIME_DIR: codex passes only a few
// variables), else `{state_dir}/sockets`; created 0700 when missing. An existing one must be a
// directory owned by us with no group or other permission: anyone who can write there could
// name a socket of theirs as our host, so it is refused, never repaired.
std::optional<std::string> socket_dir(const std::string& state_dir, std::string& error,
                                      const std::string& user_runtime = user_runtime_dir());
// The same check and creation for a given path (socket_dir's second half).
bool prepare_private_dir(const std::string& dir, std::string& error);

// `{dir}/{pid}.sock`, or an error when that is longer than a unix socket address holds (bind
// and connect would silently use a cut-off name).
std::optional<std::string> socket_path(const std::string& dir, int pid, std::string& error);
bool fits_socket_address(const std::string& path, std::string& error);

// `{dir}/{entry.pid}.json`, written whole or not at all (a temporary file renamed), mode 0600.
bool publish(const std::string& dir, const HostEntry& entry, std::string& error);
// Removes `{dir}/{pid}.json`; a missing file is not an error. The socket is the listener's.
bool unpublish(const std::string& dir, int pid, std::string& error);

// The live host serving `cwd`: among the entries whose root is `cwd` or an ancestor of it
// (whole path components: /a/b is not an ancestor of /a/bc) the deepest root, then the newest
// file. A candidate is verified (its process lives, its socket is ours and answers); a dead
// one's file and socket are removed and the next is tried. No host is not an error: the caller
// serves headless. A file that cannot be read as an entry is skipped and, when `warnings` is
// given, named there.
std::optional<HostEntry> find_host(const std::string& dir, const std::string& cwd,
                                   std::vector<std::string>* warnings = nullptr);

// For `--socket PATH` and $TOOLHOST_SOCKET: the path fits a socket address, is a socket owned by
// our uid, and a server answers there. `expected_uid` is injectable for tests only.
bool check_socket(const std::string& path, std::string& error);
bool check_socket(const std::string& path, uid_t expected_uid, std::string& error);

}  // namespace toolhost::mcp
