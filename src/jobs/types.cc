#include "jobs/types.h"

#include <algorithm>

namespace toolhost::jobs {

std::string_view to_string(Status status) {
  switch (status) {
    case Status::Queued: return "queued";
    case Status::Running: return "running";
    case Status::Succeeded: return "succeeded";
    case Status::Failed: return "failed";
    case Status::TimedOut: return "timed_out";
    case Status::Canceled: return "canceled";
    case Status::Interrupted: return "interrupted";
  }
  return "failed";
}

bool is_finished(Status status) { return status != Status::Queued && status != Status::Running; }

void Capture::append(std::string_view data) {
  if (data.empty()) return;
  bytes_ += data.size();
  lines_ += static_cast<uint64_t>(std::count(data.begin(), data.end(), '\n'));
  last_ = data.back();
  size_t to_head = std::min(kHeadBytes - head_.size(), data.size());
  head_.append(data.substr(0, to_head));
  data.remove_prefix(to_head);
  tail_.append(data);
  if (tail_.size() > 2 * kTailBytes) tail_.erase(0, tail_.size() - kTailBytes);
}

std::string Capture::tail() const {
  return tail_.size() > kTailBytes ? tail_.substr(tail_.size() - kTailBytes) : tail_;
}

uint64_t Capture::omitted_bytes() const {
  uint64_t kept = head_.size() + std::min(tail_.size(), kTailBytes);
  return bytes_ - kept;
}

void Capture::release() {
  std::string().swap(head_);
  std::string().swap(tail_);
}

}  // namespace toolhost::jobs
