#include "cli/transcript.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace toolhost::cli {
namespace {

core::Error system_error(const std::string& what, const std::string& path) {
  return core::error(what + " " + path + ": " + std::strerror(errno));
}

}  // namespace

core::Result<std::string> read_file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return system_error("cannot read", path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

core::Result<std::vector<std::string>> read_lines(const std::string& path) {
  auto text = read_file_text(path);
  if (!text) return core::error(text.error());
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text->size()) {
    size_t newline = text->find('\n', start);
    if (newline == std::string::npos) newline = text->size();
    size_t end = newline;
    if (end > start && (*text)[end - 1] == '\r' && newline < text->size()) --end;
    lines.emplace_back(*text, start, end - start);
    start = newline + 1;
  }
  return lines;
}

core::Result<core::Config> read_config(const std::string& path) {
  if (path.empty()) return core::config_from_json(nlohmann::json::object());
  auto text = read_file_text(path);
  if (!text) return core::error(text.error());
  nlohmann::json json = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded() || !json.is_object()) return core::error(path + ": not a JSON object");
  auto config = core::config_from_json(json);
  if (!config) return core::error(path + ": " + config.error());
  return config;
}

Transcript split_transcript(const std::string& text) {
  Transcript out;
  size_t newlines = 0;
  size_t crlfs = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\n') continue;
    ++newlines;
    if (i > 0 && text[i - 1] == '\r') ++crlfs;
  }
  out.crlf = newlines > 0 && crlfs == newlines;
  out.final_newline = text.empty() || text.back() == '\n';
  size_t start = 0;
  while (start < text.size()) {
    size_t newline = text.find('\n', start);
    if (newline == std::string::npos) newline = text.size();
    size_t end = newline;
    if (out.crlf && newline < text.size()) --end;  // every "\n" has its "\r"
    out.lines.emplace_back(text, start, end - start);
    start = newline + 1;
  }
  return out;
}

std::string join_transcript(const Transcript& transcript) {
  const char* eol = transcript.crlf ? "\r\n" : "\n";
  std::string text;
  for (size_t i = 0; i < transcript.lines.size(); ++i) {
    if (i > 0) text += eol;
    text += transcript.lines[i];
  }
  if (transcript.final_newline && !transcript.lines.empty()) text += eol;
  return text;
}

core::Result<bool> write_file_atomically(const std::string& path, const std::string& text) {
  namespace fs = std::filesystem;
  std::error_code ec;
  // Through a symlink to its target: renaming over the link would replace it by a copy.
  fs::path target = fs::canonical(path, ec);
  if (ec) target = path;
  struct stat st {};
  mode_t mode = ::stat(target.c_str(), &st) == 0 ? (st.st_mode & 07777) : 0644;
  std::string temp =
      (target.parent_path() / ("." + target.filename().string() + ".toolhost-XXXXXX")).string();
  int fd = ::mkstemp(temp.data());
  if (fd < 0) return system_error("cannot create a temporary file for", target.string());
  auto fail = [&](const char* what) {
    core::Error error = system_error(what, temp);
    ::close(fd);
    ::unlink(temp.c_str());
    return error;
  };
  for (size_t done = 0; done < text.size();) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail("cannot write");
    done += static_cast<size_t>(n);
  }
  if (::fchmod(fd, mode) != 0) return fail("cannot set the mode of");
  if (::fsync(fd) != 0) return fail("cannot sync");
  if (::close(fd) != 0) {
    core::Error error = system_error("cannot write", temp);
    ::unlink(temp.c_str());
    return error;
  }
  if (::rename(temp.c_str(), target.c_str()) != 0) {
    core::Error error = system_error("cannot replace", target.string());
    ::unlink(temp.c_str());
    return error;
  }
  return true;
}

}  // namespace toolhost::cli
