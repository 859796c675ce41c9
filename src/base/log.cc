#include "base/log.h"

#include <cstdio>
#include <ctime>
#include <filesystem>

#include <unistd.h>

namespace toolhost::log {
namespace {

struct Sink {
  std::FILE* file = nullptr;
  Level level = Level::Warn;
  ~Sink() {
    if (file) std::fclose(file);
  }
};

Sink& sink() {
  static Sink instance;
  return instance;
}

const char* name(Level level) {
  switch (level) {
    case Level::Debug: return "DEBUG";
    case Level::Info: return "INFO";
    case Level::Warn: return "WARN";
    case Level::Error: return "ERROR";
    case Level::Off: return "OFF";
  }
  return "?";
}

}  // namespace

std::optional<Level> level_from_string(std::string_view text) {
  for (Level level : {Level::Debug, Level::Info, Level::Warn, Level::Error, Level::Off}) {
    std::string_view upper = name(level);
    if (text.size() != upper.size()) continue;
    bool same = true;
    for (size_t i = 0; i < text.size(); ++i) {
      same = same && (text[i] & ~0x20) == upper[i];
    }
    if (same) return level;
  }
  return std::nullopt;
}

bool init(const std::string& path, Level level) {
  Sink& s = sink();
  s.level = level;
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  std::FILE* file = std::fopen(path.c_str(), "ae");
  if (!file) return false;
  if (s.file) std::fclose(s.file);
  s.file = file;
  return true;
}

void write(Level level, std::string_view message) {
  Sink& s = sink();
  if (level < s.level || level == Level::Off) return;
  std::FILE* out = s.file ? s.file : stderr;
  char stamp[32];
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  std::strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M:%S", &tm);
  std::fprintf(out, "%s %s [%d] %.*s\n", stamp, name(level), static_cast<int>(getpid()),
               static_cast<int>(message.size()), message.data());
  std::fflush(out);
}

}  // namespace toolhost::log
