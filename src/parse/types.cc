#include "parse/types.h"

#include <algorithm>

namespace toolhost::parse {

std::string_view to_string(Role role) {
  switch (role) {
    case Role::User: return "user";
    case Role::Assistant: return "assistant";
    case Role::System: return "system";
  }
  return "user";
}

std::string_view to_string(Dialect dialect) {
  switch (dialect) {
    case Dialect::Sidekick: return "sidekick";
    case Dialect::CodeCompanion: return "codecompanion";
    case Dialect::Json: return "json";
  }
  return "sidekick";
}

namespace {
constexpr std::pair<CallStatus, std::string_view> kStatusNames[] = {
    {CallStatus::Pending, "pending"},     {CallStatus::Incomplete, "incomplete"},
    {CallStatus::Succeeded, "succeeded"}, {CallStatus::Failed, "failed"},
    {CallStatus::TimedOut, "timed_out"},  {CallStatus::Canceled, "canceled"},
    {CallStatus::Rejected, "rejected"},   {CallStatus::Interrupted, "interrupted"},
};
}  // namespace

std::string_view to_string(CallStatus status) {
  for (const auto& [value, name] : kStatusNames) {
    if (value == status) return name;
  }
  return "pending";
}

std::optional<CallStatus> call_status_from_string(std::string_view name) {
  for (const auto& [value, text] : kStatusNames) {
    if (text == name) return value;
  }
  return std::nullopt;
}

const ToolSpec* ToolTable::find(std::string_view name_or_alias) const {
  for (const auto& tool : tools) {
    if (tool.name == name_or_alias) return &tool;
    if (std::find(tool.aliases.begin(), tool.aliases.end(), name_or_alias) != tool.aliases.end()) {
      return &tool;
    }
  }
  return nullptr;
}

}  // namespace toolhost::parse
