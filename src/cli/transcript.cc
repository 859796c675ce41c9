#include "cli/transcript.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace toolhost::cli {
namespace {

std::optional<std::string> slurp(const std::string& path, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = "cannot read " + path + ": " + std::strerror(errno);
    return std::nullopt;
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

std::optional<std::vector<std::string>> read_lines(const std::string& path, std::string* error) {
  auto text = slurp(path, error);
  if (!text) return std::nullopt;
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

std::optional<nlohmann::json> read_config(const std::string& path, std::string* error) {
  if (path.empty()) return nlohmann::json::object();
  auto text = slurp(path, error);
  if (!text) return std::nullopt;
  nlohmann::json config = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (config.is_discarded() || !config.is_object()) {
    *error = path + ": not a JSON object";
    return std::nullopt;
  }
  return config;
}

}  // namespace toolhost::cli
