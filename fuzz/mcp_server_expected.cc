// What each input line must get (the model mcp_server_oracle checks the server against).
#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "mcp_server_oracle.h"

namespace toolhost::mcp_fuzz {
namespace {

constexpr int kMaxDepth = 128;  // deeper is refused before anything walks the tree

bool has(const Json& object, const char* key) {
  return object.is_object() && object.contains(key);
}

}  // namespace

// MCP_FUZZ_TRACE=1 prints the conversation and the backend's events (to explain a crash).
void trace(const char* what, std::string_view text, uint64_t call) {
  static const bool on = std::getenv("MCP_FUZZ_TRACE") != nullptr;
  if (!on) return;
  std::fprintf(stderr, "%s", what);
  if (call != 0) std::fprintf(stderr, " call %llu", static_cast<unsigned long long>(call));
  std::fprintf(stderr, " %.*s\n", static_cast<int>(std::min<size_t>(text.size(), 300)),
               text.data());
}

void expect(bool ok, const char* rule) {
  if (ok) return;
  std::fprintf(stderr, "mcp_server_fuzz: broken: %s\n", rule);
  __builtin_trap();
}

std::string cleaned(const std::string& text) {
  return Json::parse(Json(text).dump(-1, ' ', false, Json::error_handler_t::replace))
      .get<std::string>();
}

Expected expect_of(std::string_view line) {
  Expected expected;  // a parse error until shown otherwise
  int deepest = 0;
  Json value;
  try {
    value = Json::parse(line, [&deepest](int depth, Json::parse_event_t, Json&) {
      deepest = std::max(deepest, depth);
      return true;
    });
  } catch (const Json::exception&) {
    return expected;
  }
  if (deepest > kMaxDepth) return expected;
  expected.kind = Expected::Kind::kInvalid;  // with id null (batches, scalars, bad ids)
  if (!value.is_object()) return expected;
  Json id = has(value, "id") ? value["id"] : Json();
  if (!id.is_null() && !id.is_string() && !id.is_number_integer()) return expected;
  expected.id = id;
  if (!has(value, "jsonrpc") || value["jsonrpc"] != "2.0") return expected;
  if (has(value, "method")) {
    if (!value["method"].is_string()) return expected;
    if (has(value, "params") && !value["params"].is_object() && !value["params"].is_array()) {
      return expected;
    }
    expected.method = value["method"].get<std::string>();
    expected.params = value.value("params", Json());
    if (has(value, "id")) {
      if (id.is_null()) return expected;  // a request's id must not be null
      expected.kind = Expected::Kind::kRequest;
    } else {
      expected.kind = Expected::Kind::kNotification;
    }
    return expected;
  }
  if (has(value, "result") == has(value, "error")) return expected;
  if (has(value, "error")) {
    const Json& error = value["error"];
    if (!has(error, "code") || !error["code"].is_number_integer()) return expected;
  }
  expected.kind = Expected::Kind::kResponse;
  expected.id = nullptr;
  return expected;
}

std::vector<std::string> lines_of(std::string_view input, size_t cap) {
  std::vector<std::string> lines;
  for (;;) {
    size_t newline = input.find('\n');
    if (newline == std::string_view::npos) {
      if (input.size() > cap) lines.emplace_back();  // reported as it arrives
      return lines;
    }
    std::string_view line = input.substr(0, newline);
    input.remove_prefix(newline + 1);
    if (line.size() > cap) {
      lines.emplace_back();
      continue;
    }
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!line.empty()) lines.emplace_back(line);
  }
}

}  // namespace toolhost::mcp_fuzz
