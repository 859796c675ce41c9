#include "nvim/buffer_loader.h"

#include <algorithm>
#include <iterator>

namespace toolhost::nvim {

BufferLoader::BufferLoader(int64_t line_count)
    : rows_(static_cast<size_t>(std::max<int64_t>(line_count, 0))),
      known_(rows_.size(), 0),
      unknown_(rows_.size()) {}

bool BufferLoader::on_lines(int64_t first, int64_t last, std::vector<std::string> lines) {
  const auto size = static_cast<int64_t>(rows_.size());
  if (first < 0 || last < first || last > size) return false;
  const auto a = static_cast<size_t>(first), b = static_cast<size_t>(last);
  unknown_ -= static_cast<size_t>(std::count(known_.begin() + a, known_.begin() + b, 0));
  const size_t common = std::min(b - a, lines.size());
  std::move(lines.begin(), lines.begin() + common, rows_.begin() + a);
  std::fill(known_.begin() + a, known_.begin() + a + common, 1);
  if (lines.size() < b - a) {
    rows_.erase(rows_.begin() + a + common, rows_.begin() + b);
    known_.erase(known_.begin() + a + common, known_.begin() + b);
  } else {
    rows_.insert(rows_.begin() + b, std::make_move_iterator(lines.begin() + common),
                 std::make_move_iterator(lines.end()));
    known_.insert(known_.begin() + b, lines.size() - common, 1);
  }
  // Rows above the edit did not move: none of them was unknown before first_unknown_.
  first_unknown_ = std::min(first_unknown_, a);
  return true;
}

bool BufferLoader::on_slice(int64_t start, int64_t end, std::vector<std::string> lines) {
  // Neovim clamps the rows to the buffer: as many as the mirror has there.
  const auto size = static_cast<int64_t>(rows_.size());
  if (start < 0 || end < start) return false;
  const int64_t expected = std::max<int64_t>(0, std::min(end, size) - start);
  if (static_cast<int64_t>(lines.size()) != expected) return false;
  const auto a = static_cast<size_t>(start);
  for (size_t i = 0; i < lines.size(); ++i) {
    read_bytes_ += lines[i].size() + 1;
    if (!known_[a + i]) --unknown_;
    known_[a + i] = 1;
    rows_[a + i] = std::move(lines[i]);
  }
  read_rows_ += lines.size();
  return true;
}

std::optional<BufferLoader::Slice> BufferLoader::next_slice(size_t max_rows,
                                                            size_t max_bytes) const {
  if (complete()) return std::nullopt;
  auto first = static_cast<size_t>(
      std::find(known_.begin() + static_cast<ptrdiff_t>(first_unknown_), known_.end(), 0) -
      known_.begin());
  first_unknown_ = first;
  size_t rows = std::min<size_t>(max_rows, 1000);
  if (read_rows_ > 0) {
    const size_t average = std::max<size_t>(1, read_bytes_ / read_rows_);
    rows = std::clamp<size_t>(max_bytes / average, 1, max_rows);
  }
  // Known rows inside the slice are read again: cheaper than a request per gap.
  const size_t end = std::min(rows_.size(), first + rows);
  return Slice{static_cast<int64_t>(first), static_cast<int64_t>(end)};
}

std::vector<std::string> BufferLoader::take() {
  std::vector<std::string> lines = std::move(rows_);
  rows_.clear();
  known_.clear();
  unknown_ = first_unknown_ = read_bytes_ = read_rows_ = 0;
  return lines;
}

}  // namespace toolhost::nvim
