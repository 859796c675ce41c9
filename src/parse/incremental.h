#pragma once
// Keeps a buffer's parse up to date from line-range changes (nvim_buf_lines_event), re-parsing
// only the message(s) an edit touches. Its result always equals parse() of the edited buffer.
//
//   IncrementalParser parser(options);
//   parser.reset(all_lines);                        // initial event (lastline = -1)
//   ParseDelta d = parser.apply(first, last, repl); // rows [first, last) became `repl`
//   const ParseResult& now = parser.result();

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "parse/message_parser.h"
#include "parse/messages.h"
#include "parse/types.h"

namespace toolhost::parse {

class IncrementalParser {
 public:
  explicit IncrementalParser(Options options);

  // Replaces the whole buffer.
  ParseDelta reset(std::vector<std::string> lines);
  // Rows [first, last) (0-based, end-exclusive) were replaced by `replacement`; last = -1 means
  // the whole buffer, as in the initial nvim_buf_lines_event. Out-of-range rows are clamped.
  ParseDelta apply(int first, int last, std::vector<std::string> replacement);
  // Options::complete changed (a reply finished streaming): re-reads the last message.
  ParseDelta set_complete(bool complete);
  // The tool table changed (an MCP server's tools arrived): reads the buffer anew.
  ParseDelta set_tools(ToolTable tools);
  // The buffer's header style became known (its filetype): splits the buffer anew.
  ParseDelta set_header_style(HeaderStyle style);

  const ParseResult& result() const { return result_; }
  const std::vector<std::string>& lines() const { return lines_; }
  const Options& options() const { return options_; }
  // How many calls of the buffer have this call_content_hash: the `k` of the next identical
  // call appended below them all.
  int identical_calls(uint64_t content_hash) const;

 private:
  struct Replaced {
    std::vector<ToolCall> old_calls;
    std::vector<uint64_t> old_hashes;
    std::vector<uint64_t> new_hashes;
    size_t new_begin = 0;  // the fresh calls are result_.calls[new_begin, new_begin + new_count)
    size_t new_count = 0;
  };

  // Rows [first, old_end) became rows [first, new_end).
  struct Edit {
    int first = 0;
    int old_end = 0;
    int new_end = 0;
  };

  // Replaces segments [a, b) with `fresh`, whose rows are already in new coordinates; rows after
  // them move by `shift`. With `edit` (what changed), an edit inside one assistant message
  // re-reads only the part of it the edit touches.
  Replaced replace_segments(size_t a, size_t b, std::vector<Segment> fresh, int shift,
                            const Edit* edit = nullptr);
  Replaced replace_within_message(size_t a, Segment fresh, int shift, const Edit& edit);
  ParseDelta renumber_and_diff(Replaced replaced);
  size_t segment_at(int row) const;
  // Splits and parses lines_ anew (classes_ already match them).
  ParseDelta split_all();

  Options options_;
  HeaderStyle style_ = HeaderStyle::Auto;  // options_.header_style, or what the first header set
  std::vector<std::string> lines_;
  std::vector<LineClass> classes_;
  std::vector<Segment> segments_;   // segment 0 is the preamble; messages are segments 1..
  std::vector<int> segment_calls_;  // calls found in each segment
  std::vector<int> segment_errors_;
  // How each message was read (empty for segments that are no assistant message), and whether
  // it was read as still streaming: what an edit inside it reuses.
  std::vector<std::vector<ParseStep>> segment_steps_;
  std::vector<char> segment_open_end_;
  ParseResult result_;
  std::vector<uint64_t> hashes_;                 // call_content_hash of each call in result_.calls
  std::unordered_map<uint64_t, int> identical_;  // calls in result_.calls per content hash
};

}  // namespace toolhost::parse
