#pragma once
// A small append-only log. The host never writes to stdout: that is the RPC channel.

#include <optional>
#include <string>
#include <string_view>

namespace toolhost::log {

enum class Level { Debug, Info, Warn, Error, Off };

std::optional<Level> level_from_string(std::string_view name);

// Opens `path` for appending (creating parent directories). Until then, or if it fails,
// messages at Warn and above go to stderr.
bool init(const std::string& path, Level level);
void write(Level level, std::string_view message);

inline void debug(std::string_view m) { write(Level::Debug, m); }
inline void info(std::string_view m) { write(Level::Info, m); }
inline void warn(std::string_view m) { write(Level::Warn, m); }
inline void error(std::string_view m) { write(Level::Error, m); }

}  // namespace toolhost::log
