#pragma once
// MCP servers played by small sh scripts, for the CLI tests (the client's request ids:
// 1 initialize, 2 the next request).

#include <string>

namespace toolhost {

// A sh server's start: it answers initialize and reads notifications/initialized.
inline std::string handshake() {
  return "read -r l; printf '%s\\n' '{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":"
         "\"2025-06-18\",\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"fake\","
         "\"version\":\"1.2\"}}}'; read -r l; ";
}

// A sh server that answers request 2 with `reply` ("result":… or "error":…).
inline std::string answers(const std::string& reply) {
  return handshake() + "read -r l; printf '%s\\n' '{\"jsonrpc\":\"2.0\",\"id\":2," + reply +
         "}'; cat >/dev/null";
}

}  // namespace toolhost
