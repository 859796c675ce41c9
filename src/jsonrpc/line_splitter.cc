#include "jsonrpc/line_splitter.h"

#include <cstring>

namespace toolhost::jsonrpc {

void LineSplitter::feed(std::string_view bytes) {
  while (!bytes.empty()) {
    const char* newline = static_cast<const char*>(std::memchr(bytes.data(), '\n', bytes.size()));
    size_t take = newline ? static_cast<size_t>(newline - bytes.data()) : bytes.size();
    if (!skipping_) {
      if (partial_.size() + take > cap_) {
        partial_.clear();
        partial_.shrink_to_fit();
        skipping_ = true;
        if (on_oversized_) on_oversized_(cap_);
      } else if (newline && partial_.empty()) {
        finish_line(bytes.substr(0, take));  // the common case: no copy
      } else {
        partial_.append(bytes.data(), take);
        if (newline) {
          std::string line = std::move(partial_);
          partial_.clear();
          finish_line(line);
        }
      }
    }
    if (!newline) return;
    skipping_ = false;
    bytes.remove_prefix(take + 1);
  }
}

void LineSplitter::finish_line(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (!line.empty() && on_line_) on_line_(line);
}

}  // namespace toolhost::jsonrpc
