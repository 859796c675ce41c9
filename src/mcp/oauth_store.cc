#include "mcp/oauth_store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "base/fs.h"

namespace toolhost::mcp {
namespace {

using Json = nlohmann::json;

// Letters, digits, '-', '_' kept; every other byte as %XX (a name may hold '/' or '..').
std::string oauth_file_name(const std::string& server) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : server) {
    if (std::isalnum(c) || c == '-' || c == '_') {
      out.push_back(static_cast<char>(c));
    } else {
      out += {'%', kHex[c >> 4], kHex[c & 15]};
    }
  }
  return out.empty() ? "%" : out;
}

std::string oauth_record_field(const Json& json, const char* key) {
  auto it = json.find(key);
  return it != json.end() && it->is_string() ? it->get<std::string>() : "";
}

}  // namespace

std::string oauth_record_dir(const std::string& state_dir) {
  return state_dir + "/mcp-oauth";
}

bool hide_oauth_records(core::Config& config, const std::string& state_dir, std::string& error) {
  if (state_dir.empty()) return true;
  const std::string dir = oauth_record_dir(state_dir);
  config.sandbox.hidden = {dir};
  struct stat st {};
  if (::lstat(dir.c_str(), &st) == 0) return true;
  base::make_dirs(state_dir);
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    error = "cannot create " + dir + ": " + std::strerror(errno);
    return false;
  }
  return true;
}

std::string oauth_record_path(const std::string& state_dir, const std::string& server) {
  return oauth_record_dir(state_dir) + "/" + oauth_file_name(server) + ".json";
}

std::optional<OAuthRecord> load_oauth_record(const std::string& state_dir,
                                             const std::string& server, std::string& error) {
  std::string path = oauth_record_path(state_dir, server);
  std::ifstream in(path);
  if (!in) {
    if (errno != ENOENT) error = "cannot read " + path + ": " + std::strerror(errno);
    return std::nullopt;
  }
  std::stringstream text;
  text << in.rdbuf();
  Json json = Json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (!json.is_object()) {
    error = path + " is not a sign-in record (remove it, or `toolhost mcp logout " + server + "`)";
    return std::nullopt;
  }
  OAuthRecord record;
  record.server_url = oauth_record_field(json, "server_url");
  record.issuer = oauth_record_field(json, "issuer");
  record.client_id = oauth_record_field(json, "client_id");
  record.client_secret = oauth_record_field(json, "client_secret");
  record.client_auth_method = oauth_record_field(json, "client_auth_method");
  record.access_token = oauth_record_field(json, "access_token");
  record.refresh_token = oauth_record_field(json, "refresh_token");
  record.scope = oauth_record_field(json, "scope");
  if (auto it = json.find("expires_at"); it != json.end() && it->is_number_integer()) {
    record.expires_at = it->get<int64_t>();
  }
  return record;
}

bool save_oauth_record(const std::string& state_dir, const std::string& server,
                       const OAuthRecord& record, std::string& error) {
  base::make_dirs(oauth_record_dir(state_dir));
  ::chmod(oauth_record_dir(state_dir).c_str(), 0700);
  Json json = {{"server_url", record.server_url},
               {"issuer", record.issuer},
               {"client_id", record.client_id},
               {"client_secret", record.client_secret},
               {"client_auth_method", record.client_auth_method},
               {"access_token", record.access_token},
               {"refresh_token", record.refresh_token},
               {"scope", record.scope},
               {"expires_at", record.expires_at}};
  std::string text = json.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
  std::string path = oauth_record_path(state_dir, server);
  std::string temp = oauth_record_dir(state_dir) + "/." + oauth_file_name(server) + "." +
                     std::to_string(::getpid()) + ".tmp";
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) {
    error = "cannot write " + temp + ": " + std::strerror(errno);
    return false;
  }
  ::fchmod(fd, 0600);  // a leftover temp file keeps its old mode through O_TRUNC
  bool written = base::write_all(fd, text) && ::fsync(fd) == 0;
  int write_errno = errno;
  ::close(fd);
  if (!written || ::rename(temp.c_str(), path.c_str()) != 0) {
    error = "cannot write " + path + ": " + std::strerror(written ? errno : write_errno);
    ::unlink(temp.c_str());
    return false;
  }
  return true;
}

bool remove_oauth_record(const std::string& state_dir, const std::string& server,
                         std::string& error) {
  std::string path = oauth_record_path(state_dir, server);
  if (::unlink(path.c_str()) == 0) return true;
  if (errno != ENOENT) error = "cannot remove " + path + ": " + std::strerror(errno);
  return false;
}

}  // namespace toolhost::mcp
