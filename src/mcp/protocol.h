#pragma once
// MCP's words shared by both sides: the revisions spoken, how a version is agreed, the methods.

#include <string>
#include <string_view>
#include <vector>

namespace toolhost::mcp {

// Newest first. 2026-07-28 (the first revision without `initialize`) is answered through
// `server/discover`; the initialize handshake agrees on one of these.
const std::vector<std::string>& supported_versions();
inline std::string_view latest_version() {
  return "2025-11-25";
}
// The first revision without `initialize`: every request names it in `_meta`.
inline std::string_view modern_version() {
  return "2026-07-28";
}
// What a server answers to `initialize` offering `requested`: the same revision when it speaks
// it, else its latest (the client then decides whether it can go on).
std::string negotiate_version(std::string_view requested);

namespace method {
constexpr const char* kInitialize = "initialize";
constexpr const char* kInitialized = "notifications/initialized";
constexpr const char* kDiscover = "server/discover";
constexpr const char* kPing = "ping";
constexpr const char* kToolsList = "tools/list";
constexpr const char* kToolsCall = "tools/call";
constexpr const char* kToolsListChanged = "notifications/tools/list_changed";
constexpr const char* kCancelled = "notifications/cancelled";
constexpr const char* kProgress = "notifications/progress";
constexpr const char* kSetLevel = "logging/setLevel";
constexpr const char* kLogMessage = "notifications/message";
}  // namespace method

}  // namespace toolhost::mcp
