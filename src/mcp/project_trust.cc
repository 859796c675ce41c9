#include "mcp/project_trust.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>

#include "mcp/sha256.h"

namespace toolhost::mcp {
namespace {

using Json = nlohmann::json;

std::string text_of(const Json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

// `word` as a shell would need it to read back the same word.
std::string shell_word(const std::string& word) {
  if (!word.empty() && word.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                              "0123456789@%_+=:,./-${}") == std::string::npos) {
    return word;
  }
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string command_line(const std::string& command, const std::vector<std::string>& args) {
  std::string line = shell_word(command);
  for (const std::string& arg : args) line += " " + shell_word(arg);
  return line;
}

// The entry named `name` as written in the file.
Json raw_entry(const FileServers& file, const std::string& name) {
  for (const auto& [key, servers] : file.entries.items()) {
    auto entry = servers.find(name);
    if (entry != servers.end() && entry->is_object()) return *entry;
  }
  return Json::object();
}

void describe_server(const FileServers& file, const ServerConfig& server,
                     const Configured& configured, std::ostringstream& out) {
  out << "  " << server.name << ": ";
  for (const ServerConfig& used : configured.servers) {
    if (used.name == server.name && used.source != server.source) {
      out << "not used: " << used.source << " configures \"" << server.name << "\" first\n";
      return;
    }
  }
  Json entry = raw_entry(file, server.name);
  if (!server.url.empty()) {
    out << text_of(entry.value("url", Json(server.url))) << "\n";
    if (entry.value("url", Json()) != Json(server.url)) out << "    is: " << server.url << "\n";
    if (!server.headers.empty()) {
      out << "    headers:";
      for (const auto& [key, value] : server.headers) out << " " << key;
      out << "\n";
    }
  } else {
    std::vector<std::string> raw_args;
    for (const Json& arg : entry.value("args", Json::array())) raw_args.push_back(text_of(arg));
    std::string written = command_line(text_of(entry.value("command", Json(""))), raw_args);
    std::string runs = command_line(server.stdio.command, server.stdio.args);
    out << written << "\n";
    if (server.error.empty() && runs != written) out << "    runs as: " << runs << "\n";
    if (entry.contains("env") && entry["env"].is_object()) {
      for (const auto& [key, value] : entry["env"].items()) {
        out << "    env: " << key << "=" << text_of(value) << "\n";
      }
    }
    if (!server.stdio.cwd.empty()) out << "    in: " << server.stdio.cwd << "\n";
  }
  if (!server.error.empty()) out << "    cannot start: " << server.error << "\n";
  if (server.disabled && server.error.empty()) out << "    (disabled in the file)\n";
}

std::string prompt_text(const FileServers& file, const Configured& configured, bool changed) {
  std::ostringstream out;
  out << file.file.path
      << (changed ? " changed since you accepted it; it can now start these MCP servers:\n"
                  : " can start these MCP servers:\n");
  for (const ServerConfig& server : file.servers) describe_server(file, server, configured, out);
  out << "Accept this file? toolhost asks again when its servers change.";
  return out.str();
}

bool write_whole(const std::string& path, const std::string& text, std::string& error) {
  std::string temp = path + ".tmp." + std::to_string(::getpid());
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  bool ok = fd >= 0;
  for (size_t done = 0; ok && done < text.size();) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    ok = n > 0;
    done += ok ? static_cast<size_t>(n) : 0;
  }
  ok = ok && ::fsync(fd) == 0;
  if (fd >= 0) ok = ::close(fd) == 0 && ok;
  ok = ok && ::rename(temp.c_str(), path.c_str()) == 0;
  if (!ok) {
    error = path + ": " + std::strerror(errno);
    ::unlink(temp.c_str());
  }
  return ok;
}

bool make_dirs(const std::string& dir) {
  for (size_t at = 1; at <= dir.size(); ++at) {
    if (at < dir.size() && dir[at] != '/') continue;
    std::string part = dir.substr(0, at);
    if (::mkdir(part.c_str(), 0700) != 0 && errno != EEXIST) return false;
  }
  return true;
}

Json to_json(const Acceptances& accepted) {
  Json files = Json::object();
  for (const auto& [path, digests] : accepted.digests) files[path] = digests;
  return {{"version", 1}, {"files", files}};
}

}  // namespace

std::string entries_digest(const Json& entries) {
  return sha256_hex(entries.dump());
}

std::string acceptances_path(const std::string& state_dir) {
  return state_dir + "/mcp_accepted.json";
}

Acceptances load_acceptances(const std::string& state_dir) {
  Acceptances out;
  std::ifstream in(acceptances_path(state_dir));
  if (!in) return out;
  std::ostringstream text;
  text << in.rdbuf();
  Json json = Json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded() || !json.is_object() || !json.value("files", Json()).is_object()) {
    out.error = acceptances_path(state_dir) + ": not a file of accepted MCP files";
    return out;
  }
  for (const auto& [path, digests] : json["files"].items()) {
    for (const Json& digest : digests.is_array() ? digests : Json::array()) {
      if (digest.is_string()) out.digests[path].push_back(digest.get<std::string>());
    }
  }
  return out;
}

std::vector<PendingFile> pending_files(const Configured& configured, const Acceptances& accepted) {
  std::vector<PendingFile> out;
  for (const FileServers& file : configured.files) {
    // Only a file with a server in use asks: one whose every name another source configures
    // first would start nothing.
    bool used = false;
    for (const ServerConfig& server : configured.servers)
      used = used || server.source == file.file.path;
    if (!file.file.project || !used) continue;
    std::string digest = entries_digest(file.entries);
    auto known = accepted.digests.find(file.file.path);
    bool changed = known != accepted.digests.end() && !known->second.empty();
    if (changed &&
        std::find(known->second.begin(), known->second.end(), digest) != known->second.end()) {
      continue;
    }
    PendingFile pending;
    pending.file = file.file;
    pending.digest = digest;
    pending.changed = changed;
    for (const ServerConfig& server : file.servers) pending.servers.push_back(server.name);
    pending.prompt = prompt_text(file, configured, changed);
    out.push_back(std::move(pending));
  }
  return out;
}

void hold_unaccepted(Configured& configured, const std::vector<PendingFile>& pending) {
  for (ServerConfig& server : configured.servers) {
    for (const PendingFile& file : pending) {
      if (server.source != file.file.path) continue;
      server.disabled = true;
      server.error = kNotAccepted;
    }
  }
}

AcceptedServers load_accepted_servers(const ServersConfig& setup, const Places& places,
                                      const std::string& state_dir, const Lookup& lookup) {
  AcceptedServers out;
  out.configured = load_servers(setup, places, lookup);
  Acceptances accepted;
  if (!state_dir.empty()) accepted = load_acceptances(state_dir);
  if (!accepted.error.empty()) out.configured.messages.push_back(accepted.error);
  out.pending = pending_files(out.configured, accepted);
  hold_unaccepted(out.configured, out.pending);
  return out;
}

Json pending_to_json(const std::vector<PendingFile>& pending) {
  Json out = Json::array();
  for (const PendingFile& file : pending) {
    out.push_back({{"path", file.file.path},
                   {"digest", file.digest},
                   {"changed", file.changed},
                   {"servers", file.servers},
                   {"prompt", file.prompt}});
  }
  return out;
}

std::optional<ConfigFile> project_file(const Places& places, const std::string& path) {
  for (const ConfigFile& file : config_files(places)) {
    if (file.project && file.path == path) return file;
  }
  return std::nullopt;
}

bool accept(const std::string& state_dir, const ConfigFile& file, const std::string& digest,
            std::string& error) {
  auto nothing = [](const std::string&) -> std::optional<std::string> { return std::nullopt; };
  auto current = read_config_file(file, Places{}, nothing);
  if (!current || !current->error.empty()) {
    error = file.path + ": " + (current ? current->error : "no longer exists");
    return false;
  }
  if (entries_digest(current->entries) != digest) {
    error = file.path + " changed since it was shown: review it again";
    return false;
  }
  if (!make_dirs(state_dir)) {
    error = state_dir + ": " + std::strerror(errno);
    return false;
  }
  // Two editors accepting at once must not lose one's answer: read, change and write under a
  // lock. It is held for one small file's read and write.
  std::string lock_path = state_dir + "/mcp_accepted.lock";
  int lock = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (lock < 0 || ::flock(lock, LOCK_EX) != 0) {
    error = lock_path + ": " + std::strerror(errno);
    if (lock >= 0) ::close(lock);
    return false;
  }
  Acceptances accepted = load_acceptances(state_dir);  // an unreadable one is replaced
  std::vector<std::string>& digests = accepted.digests[file.path];
  digests.erase(std::remove(digests.begin(), digests.end(), digest), digests.end());
  digests.insert(digests.begin(), digest);
  if (digests.size() > kKeptDigests) digests.resize(kKeptDigests);
  bool ok = write_whole(acceptances_path(state_dir), to_json(accepted).dump(2) + "\n", error);
  ::close(lock);
  return ok;
}

}  // namespace toolhost::mcp
