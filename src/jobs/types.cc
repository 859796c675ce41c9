#include "jobs/types.h"

#include <algorithm>
#include <chrono>
#include <cstring>

namespace toolhost::jobs {

int64_t wall_clock_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

uint64_t job_number(std::string_view id) {
  constexpr std::string_view kPrefix = "th-";
  if (id.substr(0, kPrefix.size()) != kPrefix || id.size() == kPrefix.size()) return 0;
  uint64_t n = 0;
  for (char c : id.substr(kPrefix.size())) {
    if (c < '0' || c > '9') return 0;
    uint64_t digit = static_cast<uint64_t>(c - '0');
    if (n > (UINT64_MAX - digit) / 10) return 0;  // not a number we could have given out
    n = n * 10 + digit;
  }
  return n;
}

void Capture::append(std::string_view data) {
  if (data.empty()) return;
  bytes_ += data.size();
  const char* p = data.data();
  const char* end = p + data.size();
  while ((p = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(end - p))))) {
    ++lines_;
    ++p;
  }
  last_ = data.back();
  size_t to_head = std::min(kHeadBytes - head_.size(), data.size());
  head_.append(data.substr(0, to_head));
  data.remove_prefix(to_head);
  if (data.size() >= kTailBytes) {  // only the last kTailBytes can stay
    ring_.assign(data.substr(data.size() - kTailBytes));
    ring_pos_ = 0;
    return;
  }
  if (ring_.size() < kTailBytes) {  // still growing
    size_t grow = std::min(kTailBytes - ring_.size(), data.size());
    ring_.append(data.substr(0, grow));
    data.remove_prefix(grow);
  }
  while (!data.empty()) {  // full: overwrite the oldest bytes
    size_t n = std::min(kTailBytes - ring_pos_, data.size());
    std::memcpy(&ring_[ring_pos_], data.data(), n);
    ring_pos_ = (ring_pos_ + n) % kTailBytes;
    data.remove_prefix(n);
  }
}

std::string Capture::tail() const {
  if (ring_pos_ == 0) return ring_;
  return ring_.substr(ring_pos_) + ring_.substr(0, ring_pos_);
}

uint64_t Capture::omitted_bytes() const {
  return bytes_ - head_.size() - ring_.size();
}

void Capture::release() {
  std::string().swap(head_);
  std::string().swap(ring_);
  ring_pos_ = 0;
}

void Capture::restore_counts(uint64_t bytes, uint64_t lines) {
  bytes_ = bytes;
  lines_ = lines;
}

}  // namespace toolhost::jobs
