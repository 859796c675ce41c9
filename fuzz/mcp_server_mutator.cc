// mcp_server_fuzz's structure-aware mutator: byte mutations seldom turn a JSON value into one of
// another type without breaking the line, and such values (a null name, a numeric reason) are
// what a server must survive. Two times in three it parses one line of the input and changes
// one value in it (another type, a key removed or added, a copy of another value) or moves
// whole lines; else, and for lines that are not JSON, libFuzzer's own mutations.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace {

using Json = nlohmann::json;
constexpr size_t kHeader = 3;  // mcp_server_fuzz.cc's seed bytes, left to libFuzzer

Json pick_value(std::minstd_rand& rng) {
  static const Json pool = Json::parse(R"([null, true, false, 0, -1, 1, 2, 7, 1.5, 1e300,
      18446744073709551615, -9223372036854775808, "", "x", "2.0", "2025-11-25", "2024-11-05",
      "initialize", "ping", "tools/list", "tools/call", "notifications/cancelled",
      "notifications/initialized", "server/discover", "logging/setLevel", "echo", "count",
      "strict", "slow", "lines", {}, [], [1], {"a": null}])");
  return pool[rng() % pool.size()];
}

const char* pick_key(std::minstd_rand& rng) {
  static const char* const keys[] = {
      "jsonrpc", "id",        "method",   "params",          "result",      "error",
      "code",    "message",   "name",     "arguments",       "_meta",       "progressToken",
      "reason",  "requestId", "text",     "repeat",          "n",           "unit",
      "flags",   "path",      "mode",     "options",         "depth",       "clientInfo",
      "version", "level",     "progress", "protocolVersion", "capabilities"};
  return keys[rng() % (sizeof keys / sizeof keys[0])];
}

// Every value in the tree, without recursion (a line may nest thousands deep).
std::vector<Json*> values_of(Json& root) {
  std::vector<Json*> values{&root};
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i]->is_structured()) {
      for (Json& child : *values[i]) values.push_back(&child);
    }
  }
  return values;
}

void mutate_value(Json& root, std::minstd_rand& rng) {
  std::vector<Json*> values = values_of(root);
  Json& value = *values[rng() % values.size()];
  switch (rng() % 6) {
    case 0: value = pick_value(rng); break;
    case 1: value = Json(*values[rng() % values.size()]); break;  // a copy, before it changes
    case 2:
      if (value.is_object() && !value.empty()) {
        auto it = value.begin();
        std::advance(it, static_cast<long>(rng() % value.size()));
        value.erase(it);
      } else if (value.is_array() && !value.empty()) {
        value.erase(rng() % value.size());
      }
      break;
    case 3:
      if (value.is_object()) value[pick_key(rng)] = pick_value(rng);
      if (value.is_array()) value.push_back(pick_value(rng));
      break;
    case 4: value = Json::array({Json(value)}); break;
    default: value = value.is_object() ? Json::array() : Json::object(); break;
  }
}

std::vector<std::string> split_lines(std::string_view body) {
  std::vector<std::string> lines;
  size_t at = 0;
  while (at <= body.size()) {
    size_t newline = body.find('\n', at);
    if (newline == std::string_view::npos) newline = body.size();
    lines.emplace_back(body.substr(at, newline - at));
    at = newline + 1;
  }
  return lines;
}

}  // namespace

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  std::minstd_rand rng(seed);
  if (size <= kHeader || rng() % 3 == 0) return LLVMFuzzerMutate(data, size, max_size);
  std::vector<std::string> lines =
      split_lines(std::string_view(reinterpret_cast<const char*>(data) + kHeader, size - kHeader));
  size_t chosen = rng() % lines.size();
  switch (rng() % 8) {
    case 0: lines.insert(lines.begin() + static_cast<long>(chosen), lines[chosen]); break;
    case 1: std::swap(lines[chosen], lines[rng() % lines.size()]); break;
    case 2:
      if (lines.size() > 1) lines.erase(lines.begin() + static_cast<long>(chosen));
      break;
    default: {
      Json value = Json::parse(lines[chosen], nullptr, false);
      if (value.is_discarded()) return LLVMFuzzerMutate(data, size, max_size);
      mutate_value(value, rng);
      lines[chosen] = value.dump(-1, ' ', false, Json::error_handler_t::replace);
    }
  }
  std::string out(reinterpret_cast<const char*>(data), kHeader);
  for (size_t i = 0; i < lines.size(); ++i) out += (i ? "\n" : "") + lines[i];
  if (out.size() > max_size) return LLVMFuzzerMutate(data, size, max_size);
  std::memcpy(data, out.data(), out.size());
  return out.size();
}
