#pragma once
// A ToolBackend for tests of the MCP server and client: it lists `echo` (a required string
// `text`, read-only) plus `extra`, and holds every call until the test finishes it through its
// sink.
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "mcp/server.h"

namespace toolhost::mcp::fakes {

class HeldBackend : public ToolBackend {
 public:
  std::vector<Tool> tools() override {
    Tool echo;
    echo.name = "echo";
    echo.description = "Says it back";
    echo.input_schema = Json::parse(
        R"({"type":"object","properties":{"text":{"type":"string"}},"required":["text"]})");
    echo.annotations.read_only = true;
    std::vector<Tool> all = {echo};
    all.insert(all.end(), extra.begin(), extra.end());
    return all;
  }
  void start(Call call, Sink sink) override {
    started.push_back(call);
    sinks[call.id] = std::move(sink);
  }
  void cancel(uint64_t id, const std::string& reason) override {
    cancelled.emplace_back(id, reason);
  }

  std::vector<Tool> extra;
  std::vector<Call> started;
  std::map<uint64_t, Sink> sinks;
  std::vector<std::pair<uint64_t, std::string>> cancelled;
};

}  // namespace toolhost::mcp::fakes
