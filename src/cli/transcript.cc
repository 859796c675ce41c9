#include "cli/transcript.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace toolhost::cli {
namespace {

core::Result<std::string> slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return core::error("cannot read " + path + ": " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

core::Result<std::vector<std::string>> read_lines(const std::string& path) {
  auto text = slurp(path);
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
  auto text = slurp(path);
  if (!text) return core::error(text.error());
  nlohmann::json json = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded() || !json.is_object()) return core::error(path + ": not a JSON object");
  auto config = core::config_from_json(json);
  if (!config) return core::error(path + ": " + config.error());
  return config;
}

}  // namespace toolhost::cli
