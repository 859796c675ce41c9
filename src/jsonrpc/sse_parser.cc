#include "jsonrpc/sse_parser.h"

#include <algorithm>

namespace toolhost::jsonrpc {
namespace {

constexpr std::string_view kBom = "\xEF\xBB\xBF";
// A retry longer than a day is a server's mistake; it would only stall the reconnection.
constexpr uint64_t kMaxRetryMs = 24ull * 60 * 60 * 1000;

}  // namespace

void SseParser::feed(std::string_view bytes) {
  if (!started_) {
    // A BOM may open the stream, and may arrive split across reads.
    while (!bytes.empty() && bom_seen_ < kBom.size() && bytes.front() == kBom[bom_seen_]) {
      ++bom_seen_;
      bytes.remove_prefix(1);
    }
    if (bom_seen_ < kBom.size() && bytes.empty()) return;
    started_ = true;
    if (bom_seen_ < kBom.size()) feed_lines(kBom.substr(0, bom_seen_));  // not a BOM after all
  }
  feed_lines(bytes);
}

void SseParser::feed_lines(std::string_view bytes) {
  while (!bytes.empty()) {
    if (after_cr_) {
      after_cr_ = false;
      if (bytes.front() == '\n') {
        bytes.remove_prefix(1);
        continue;
      }
    }
    size_t end = bytes.find_first_of("\r\n");
    std::string_view piece = bytes.substr(0, end);
    if (!skipping_line_) {
      if (line_.size() + piece.size() > cap_ + 16) {  // "data: " and a little more
        line_.clear();
        line_.shrink_to_fit();
        skipping_line_ = true;
        if (!oversized_) {
          oversized_ = true;
          data_.clear();
          data_.shrink_to_fit();
          if (on_oversized_) on_oversized_(cap_);
        }
      } else if (end != std::string_view::npos && line_.empty()) {
        line(piece);  // the common case: no copy
      } else {
        line_.append(piece.data(), piece.size());
        if (end != std::string_view::npos) {
          std::string whole = std::move(line_);
          line_.clear();
          line(whole);
        }
      }
    } else if (end != std::string_view::npos) {
      // The oversized line ends; it belonged to an event already reported and dropped.
      skipping_line_ = false;
    }
    if (end == std::string_view::npos) return;
    after_cr_ = bytes[end] == '\r';
    bytes.remove_prefix(end + 1);
  }
}

void SseParser::line(std::string_view text) {
  if (text.empty()) return dispatch();
  if (text.front() == ':') return;  // a comment (a keep-alive)
  size_t colon = text.find(':');
  if (colon == std::string_view::npos) return field(text, "");
  std::string_view value = text.substr(colon + 1);
  if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  field(text.substr(0, colon), value);
}

void SseParser::field(std::string_view name, std::string_view value) {
  if (name == "data") {
    if (oversized_) return;
    if (data_.size() + value.size() + 1 > cap_ + 1) {
      oversized_ = true;
      data_.clear();
      data_.shrink_to_fit();
      if (on_oversized_) on_oversized_(cap_);
      return;
    }
    data_.append(value.data(), value.size());
    data_.push_back('\n');
  } else if (name == "event") {
    type_.assign(value.data(), value.size());
  } else if (name == "id") {
    if (value.find('\0') == std::string_view::npos) id_buffer_.assign(value.data(), value.size());
  } else if (name == "retry") {
    if (value.empty() || value.size() > 12 ||
        !std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      return;
    }
    retry_ms_ = std::min<uint64_t>(std::stoull(std::string(value)), kMaxRetryMs);
  }
}

void SseParser::dispatch() {
  // As the standard says: the id counts even for an event without data (MCP's priming event).
  last_event_id_ = id_buffer_;
  bool oversized = oversized_;
  oversized_ = false;
  if (data_.empty() || oversized) {
    data_.clear();
    type_.clear();
    return;
  }
  data_.pop_back();  // the "\n" after the last data line
  SseEvent event{std::move(type_), std::move(data_), last_event_id_};
  data_.clear();
  type_.clear();
  if (on_event_) on_event_(event);
}

}  // namespace toolhost::jsonrpc
