#pragma once
// A parsed call of `tool` with `params`, as the policy tests hand it to auto_accept().

#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "core/tool_call.h"

namespace toolhost::tools {

inline core::ToolCall call(const std::string& tool,
                           nlohmann::json params = nlohmann::json::object()) {
  core::ToolCall c;
  c.tool = tool;
  c.params = std::move(params);
  return c;
}

}  // namespace toolhost::tools
