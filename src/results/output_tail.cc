#include "results/output_tail.h"

#include <algorithm>
#include <cstring>

#include "results/text_clean.h"

namespace toolhost::results {
namespace {

bool is_continuation(char byte) {
  return (static_cast<unsigned char>(byte) & 0xC0) == 0x80;
}

}  // namespace

OutputTail::OutputTail(size_t keep, size_t width)
    : keep_(std::max<size_t>(1, keep)),
      width_(width == 0 ? results::kMaxLineCodePoints
                        : std::min(width, results::kMaxLineCodePoints)) {}

void OutputTail::Line::add(std::string_view bytes) {
  std::string_view body = bytes;
  while (!body.empty() && body.back() == '\r') body.remove_suffix(1);
  bool trailing_cr = body.size() < bytes.size();
  // memrchr, not rfind: a flood brings kilobytes per line, and rfind goes byte by byte.
  auto* cr =
      body.empty() ? nullptr : static_cast<const char*>(::memrchr(body.data(), '\r', body.size()));
  if (cr) {
    body.remove_prefix(static_cast<size_t>(cr - body.data()) + 1);
    text.clear();
    truncated = false;
  } else if (ends_with_cr && !body.empty()) {
    text.clear();
    truncated = false;
  }
  if (!body.empty()) ends_with_cr = false;
  if (trailing_cr) ends_with_cr = true;
  if (text.size() + body.size() <= kLineBytes) {
    text.append(body);
  } else if (!truncated) {
    // Cut before the character that the byte budget would split. (An escape sequence split
    // at the end is harmless: clean_line drops an unterminated one.)
    size_t cut = kLineBytes - text.size();
    while (cut > 0 && is_continuation(body[cut])) --cut;
    text.append(body.substr(0, cut));
    if (cut == 0 && is_continuation(body[0])) {
      while (!text.empty() && is_continuation(text.back())) text.pop_back();
      if (!text.empty()) text.pop_back();  // the lead byte
    }
    truncated = true;
  }
}

void OutputTail::finish(Line& line) {
  done_.push_back(std::move(line));
  line = Line();
  if (done_.size() > keep_) done_.pop_front();
}

void OutputTail::append(jobs::Stream stream, std::string_view data) {
  Line& partial = partial_[stream == jobs::Stream::Stdout ? 0 : 1];
  const char* begin = data.data();
  const char* last_newline =
      static_cast<const char*>(data.empty() ? nullptr : ::memrchr(begin, '\n', data.size()));
  if (!last_newline) return partial.add(data);
  // Only the last `keep` complete lines can show: find where they start, scanning backward.
  const char* from = begin;
  const char* cursor = last_newline;
  for (size_t found = 1; found <= keep_; ++found) {
    auto* previous = static_cast<const char*>(::memrchr(begin, '\n', cursor - begin));
    if (!previous) break;
    if (found == keep_) {
      from = previous + 1;
      partial = Line();  // its end scrolled away with the lines after it
      done_.clear();
    }
    cursor = previous;
  }
  while (from <= last_newline) {
    auto* newline = static_cast<const char*>(std::memchr(from, '\n', last_newline + 1 - from));
    partial.add(std::string_view(from, newline - from));
    finish(partial);
    from = newline + 1;
  }
  partial.add(std::string_view(from, begin + data.size() - from));
}

std::string OutputTail::shown(const Line& line) const {
  std::string text = results::clean_line(line.text, width_);
  bool marked = text.size() >= 3 && text.compare(text.size() - 3, 3, "…") == 0;
  if (line.truncated && !marked) text += "…";
  return text;
}

std::vector<std::string> OutputTail::lines() const {
  std::vector<std::string> out;
  for (const Line& line : done_) out.push_back(shown(line));
  for (const Line& line : partial_) {
    if (!line.text.empty()) out.push_back(shown(line));
  }
  if (out.size() > keep_) out.erase(out.begin(), out.end() - static_cast<long>(keep_));
  return out;
}

}  // namespace toolhost::results
