#include "core/status.h"

#include <utility>

namespace toolhost::core {
namespace {

constexpr std::pair<Status, std::string_view> kNames[] = {
    {Status::Pending, "pending"},
    {Status::Incomplete, "incomplete"},
    {Status::AwaitingApproval, "awaiting_approval"},
    {Status::Queued, "queued"},
    {Status::Running, "running"},
    {Status::Succeeded, "succeeded"},
    {Status::Failed, "failed"},
    {Status::TimedOut, "timed_out"},
    {Status::Canceled, "canceled"},
    {Status::Rejected, "rejected"},
    {Status::Interrupted, "interrupted"},
};

}  // namespace

std::string_view to_string(Status status) {
  for (const auto& [value, name] : kNames) {
    if (value == status) return name;
  }
  return "failed";
}

std::optional<Status> status_from_string(std::string_view name) {
  for (const auto& [value, text] : kNames) {
    if (text == name) return value;
  }
  return std::nullopt;
}

bool is_finished(Status status) {
  switch (status) {
    case Status::Succeeded:
    case Status::Failed:
    case Status::TimedOut:
    case Status::Canceled:
    case Status::Rejected:
    case Status::Interrupted: return true;
    default: return false;
  }
}

}  // namespace toolhost::core
