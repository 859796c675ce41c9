#pragma once
// The caps of one call's list (issue #39): at most `max_items` items in at most `max_files`
// distinct files. Every file name becomes a buffer in the editor (bufadd) and every item costs
// it time to set: past the caps the list ends with one item that names the full log, and
// parsing stops.

#include <cstddef>
#include <string>
#include <unordered_set>

namespace toolhost::quickfix {

class ItemCaps {
 public:
  ItemCaps(size_t max_items, size_t max_files) : max_items_(max_items), max_files_(max_files) {}

  // Whether an item in `file` ("" for an item without one) fits; the first that does not
  // makes the list truncated, and so does every later call.
  bool admit(const std::string& file);
  // Ends the list for another reason (more output than the parser keeps up with).
  void truncate() { truncated_ = true; }
  bool truncated() const { return truncated_; }
  size_t items() const { return items_; }
  size_t files() const { return files_.size(); }

 private:
  size_t max_items_;
  size_t max_files_;
  size_t items_ = 0;
  std::unordered_set<std::string> files_;
  bool truncated_ = false;
};

// The text of the list's last item once truncated.
std::string truncated_text(const std::string& log_path);

}  // namespace toolhost::quickfix
