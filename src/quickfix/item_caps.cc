#include "quickfix/item_caps.h"

namespace toolhost::quickfix {

bool ItemCaps::admit(const std::string& file) {
  if (truncated_) return false;
  const bool new_file = !file.empty() && !files_.count(file);
  if (items_ >= max_items_ || (new_file && files_.size() >= max_files_)) {
    truncated_ = true;
    return false;
  }
  ++items_;
  if (new_file) files_.insert(file);
  return true;
}

std::string truncated_text(const std::string& log_path) {
  return "truncated; full log: " + (log_path.empty() ? std::string("(none kept)") : log_path);
}

}  // namespace toolhost::quickfix
