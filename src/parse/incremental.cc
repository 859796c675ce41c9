#include "parse/incremental.h"

#include <algorithm>
#include <numeric>
#include <unordered_map>
#include <unordered_set>

#include "parse/call_id.h"
#include "parse/message_parser.h"

namespace toolhost::parse {
namespace {

// Replaces v[first, last) with `fresh`, moving the tail once at most: edits usually replace as
// many lines as they remove, and then nothing below them moves at all.
template <typename T>
void splice(std::vector<T>& v, size_t first, size_t last, std::vector<T>&& fresh) {
  const size_t common = std::min(last - first, fresh.size());
  std::move(fresh.begin(), fresh.begin() + common, v.begin() + first);
  if (fresh.size() < last - first) {
    v.erase(v.begin() + first + common, v.begin() + last);
  } else {
    v.insert(v.begin() + first + common, std::make_move_iterator(fresh.begin() + common),
             std::make_move_iterator(fresh.end()));
  }
}

int sum(const std::vector<int>& counts, size_t from, size_t to) {
  return std::accumulate(counts.begin() + from, counts.begin() + to, 0);
}

void relative(ParseStep& step, int rows) {
  step.row += rows;
  step.reach += rows;
  step.next += rows;
}

void shift_call(ToolCall& call, int rows) {
  call.start += rows;
  call.end += rows;
  if (call.result) {
    call.result->start += rows;
    call.result->end += rows;
  }
}

// Same call in the same shape (rows may have moved with the text above).
bool same_call(const ToolCall& a, const ToolCall& b) {
  auto same_result = [](const std::optional<ResultRef>& x, const std::optional<ResultRef>& y) {
    if (!x || !y) return !x && !y;
    return x->end - x->start == y->end - y->start && x->job_id == y->job_id &&
           x->status == y->status;
  };
  return a.tool == b.tool && a.params == b.params && a.status == b.status &&
         a.dialect == b.dialect && a.part == b.part && a.column == b.column &&
         a.executed_form == b.executed_form && a.end - a.start == b.end - b.start &&
         same_result(a.result, b.result);
}

}  // namespace

IncrementalParser::IncrementalParser(Options options) : options_(std::move(options)) {
  reset({});
}

ParseDelta IncrementalParser::reset(std::vector<std::string> lines) {
  lines_ = std::move(lines);
  classes_.clear();
  classes_.reserve(lines_.size());
  for (const auto& line : lines_) classes_.push_back(classify_line(line, options_.roles));
  return split_all();
}

ParseDelta IncrementalParser::split_all() {
  Replaced replaced;
  replaced.old_calls = std::move(result_.calls);
  replaced.old_hashes = std::move(hashes_);
  result_ = ParseResult{};
  hashes_.clear();
  segments_.clear();
  segment_calls_.clear();
  segment_errors_.clear();
  segment_steps_.clear();
  segment_open_end_.clear();
  style_ = options_.header_style;
  Replaced fresh = replace_segments(0, 0, split_segments(classes_, 0, &style_), 0);
  replaced.new_hashes = std::move(fresh.new_hashes);
  replaced.new_begin = fresh.new_begin;
  replaced.new_count = fresh.new_count;
  return renumber_and_diff(std::move(replaced));
}

size_t IncrementalParser::segment_at(int row) const {
  auto it = std::upper_bound(segments_.begin(), segments_.end(), row,
                             [](int r, const Segment& s) { return r < s.start; });
  return it == segments_.begin() ? 0 : static_cast<size_t>(it - segments_.begin() - 1);
}

ParseDelta IncrementalParser::apply(int first, int last, std::vector<std::string> replacement) {
  if (last < 0) return reset(std::move(replacement));
  const int old_count = static_cast<int>(lines_.size());
  first = std::clamp(first, 0, old_count);
  last = std::clamp(last, first, old_count);
  const int added = static_cast<int>(replacement.size());
  const int shift = added - (last - first);

  std::vector<LineClass> fresh_classes;
  fresh_classes.reserve(replacement.size());
  int longest_bare[2] = {0, 0};  // backtick, tilde
  for (const auto& line : replacement) {
    fresh_classes.push_back(classify_line(line, options_.roles));
    const LineClass& c = fresh_classes.back();
    if (c.bare) {
      int& longest = longest_bare[c.fence_char == '`' ? 0 : 1];
      longest = std::max(longest, c.fence_length);
    }
  }

  // The row above the edit too: editing a header line changes where the previous message ends.
  size_t a = segment_at(std::max(first - 1, 0));
  // A new closing fence may close a fence left open in an earlier message, which then swallows
  // the headers between them.
  for (size_t i = 0; i < a; ++i) {
    const Segment& s = segments_[i];
    if (s.unclosed_row < 0) continue;
    int longest = longest_bare[s.unclosed_char == '`' ? 0 : 1];
    if (longest >= s.unclosed_length) {
      a = i;
      break;
    }
  }
  if (segments_[a].start == 0) a = 0;  // a message at row 0 re-splits with the empty preamble

  splice(lines_, first, last, std::move(replacement));
  splice(classes_, first, last, std::move(fresh_classes));

  SplitStop stop{first + added, &segments_, shift};
  int stopped_at = 0;
  // A split from the top meets the first header again, which decides an Auto style.
  HeaderStyle style = a == 0 ? options_.header_style : style_;
  std::vector<Segment> fresh =
      split_segments(classes_, segments_[a].start, &style, &stop, &stopped_at);
  // The first header changed its syntax: every header below may have changed its meaning.
  if (style != style_) return split_all();
  size_t b = segments_.size();
  if (stopped_at < static_cast<int>(lines_.size())) {
    b = segment_at(stopped_at - shift);
  }
  const Edit edit{first, last, first + added};
  return renumber_and_diff(replace_segments(a, b, std::move(fresh), shift, &edit));
}

ParseDelta IncrementalParser::set_complete(bool complete) {
  if (complete == options_.complete) return {};
  options_.complete = complete;
  size_t last = segments_.size() - 1;
  std::vector<Segment> same{segments_[last]};
  return renumber_and_diff(replace_segments(last, last + 1, std::move(same), 0));
}

ParseDelta IncrementalParser::set_tools(ToolTable tools) {
  options_.tools = std::move(tools);
  return split_all();
}

ParseDelta IncrementalParser::set_header_style(HeaderStyle style) {
  if (style == options_.header_style) return {};
  options_.header_style = style;
  return split_all();
}

IncrementalParser::Replaced IncrementalParser::replace_segments(size_t a, size_t b,
                                                                std::vector<Segment> fresh,
                                                                int shift, const Edit* edit) {
  // An edit inside one message that stays one message (the usual typing, and every result
  // toolhost writes): only the turns of its reader that the edit touches are read again.
  const int assistant = static_cast<int>(Role::Assistant);
  if (edit && b == a + 1 && fresh.size() == 1 && fresh[0].start == segments_[a].start &&
      fresh[0].role == assistant && segments_[a].role == assistant &&
      segment_open_end_[a] == (b == segments_.size() && !options_.complete) &&
      edit->first > segments_[a].start) {
    return replace_within_message(a, fresh[0], shift, *edit);
  }
  Replaced replaced;
  const int call_begin = sum(segment_calls_, 0, a);
  const int call_end = call_begin + sum(segment_calls_, a, b);
  const int error_begin = sum(segment_errors_, 0, a);
  const int error_end = error_begin + sum(segment_errors_, a, b);
  replaced.old_calls.assign(std::make_move_iterator(result_.calls.begin() + call_begin),
                            std::make_move_iterator(result_.calls.begin() + call_end));
  replaced.old_hashes.assign(hashes_.begin() + call_begin, hashes_.begin() + call_end);

  // Parse the fresh segments. The last segment of the buffer may still be streaming.
  const bool ends_buffer = b == segments_.size();
  std::vector<ToolCall> calls;
  std::vector<uint64_t> hashes;
  std::vector<ParseError> errors;
  std::vector<int> calls_per_segment;
  std::vector<int> errors_per_segment;
  std::vector<std::vector<ParseStep>> steps_per_segment;
  std::vector<char> open_end_per_segment;
  for (size_t i = 0; i < fresh.size(); ++i) {
    const Segment& s = fresh[i];
    MessageCalls found;
    bool open_end = ends_buffer && i + 1 == fresh.size() && !options_.complete;
    if (s.role == static_cast<int>(Role::Assistant)) {
      found = parse_message(lines_, s.start + 1, s.end, options_, open_end);
    }
    for (ParseStep& step : found.steps) relative(step, -s.start);
    steps_per_segment.push_back(std::move(found.steps));
    open_end_per_segment.push_back(open_end);
    for (auto& call : found.calls) call.message = static_cast<int>(a + i) - 1;
    calls_per_segment.push_back(static_cast<int>(found.calls.size()));
    errors_per_segment.push_back(static_cast<int>(found.errors.size()));
    calls.insert(calls.end(), std::make_move_iterator(found.calls.begin()),
                 std::make_move_iterator(found.calls.end()));
    hashes.insert(hashes.end(), found.content_hashes.begin(), found.content_hashes.end());
    errors.insert(errors.end(), std::make_move_iterator(found.errors.begin()),
                  std::make_move_iterator(found.errors.end()));
  }
  replaced.new_hashes = hashes;
  replaced.new_begin = static_cast<size_t>(call_begin);
  replaced.new_count = calls.size();
  const int segment_shift = static_cast<int>(fresh.size()) - static_cast<int>(b - a);

  // Calls and errors below the fresh segments move with the text.
  const size_t fresh_calls = calls.size();
  splice(result_.calls, call_begin, call_end, std::move(calls));
  splice(hashes_, call_begin, call_end, std::move(hashes));
  for (size_t i = call_begin + fresh_calls; i < result_.calls.size(); ++i) {
    shift_call(result_.calls[i], shift);
    result_.calls[i].message += segment_shift;
  }
  const size_t fresh_errors = errors.size();
  splice(result_.errors, error_begin, error_end, std::move(errors));
  for (size_t i = error_begin + fresh_errors; i < result_.errors.size(); ++i) {
    ParseError& error = result_.errors[i];
    error.start += shift;
    error.end += shift;
    error.line += shift;
  }

  // Segments and the messages they are (segment 0, the preamble, is no message).
  for (size_t i = b; i < segments_.size(); ++i) {
    Segment& s = segments_[i];
    s.start += shift;
    s.end += shift;
    if (s.unclosed_row >= 0) s.unclosed_row += shift;
  }
  const size_t message_begin = a == 0 ? 0 : a - 1;
  const size_t message_end = b == 0 ? 0 : b - 1;
  std::vector<Message> messages;
  for (const Segment& s : fresh) {
    if (s.role >= 0) messages.push_back({static_cast<Role>(s.role), s.start, s.end});
  }
  const size_t fresh_messages = messages.size();
  splice(result_.messages, message_begin, message_end, std::move(messages));
  for (size_t i = message_begin + fresh_messages; i < result_.messages.size(); ++i) {
    result_.messages[i].start += shift;
    result_.messages[i].end += shift;
  }
  splice(segments_, a, b, std::move(fresh));
  splice(segment_calls_, a, b, std::move(calls_per_segment));
  splice(segment_errors_, a, b, std::move(errors_per_segment));
  splice(segment_steps_, a, b, std::move(steps_per_segment));
  splice(segment_open_end_, a, b, std::move(open_end_per_segment));
  return replaced;
}

IncrementalParser::Replaced IncrementalParser::replace_within_message(size_t a, Segment fresh,
                                                                      int shift, const Edit& edit) {
  const bool open_end = segment_open_end_[a] != 0;
  // Steps are kept relative to their segment's start (which the edit did not move), so that
  // the segments below an edit move without touching them.
  std::vector<ParseStep> old_steps = std::move(segment_steps_[a]);
  for (ParseStep& step : old_steps) relative(step, fresh.start);
  const MessageReuse reuse{&old_steps, edit.first, edit.old_end, edit.new_end};
  MessageCalls found =
      parse_message(lines_, fresh.start + 1, fresh.end, options_, open_end, &reuse);
  for (ParseStep& step : found.steps) relative(step, -fresh.start);

  // The calls and errors the reader found again replace those between the kept and the tail
  // ones; everything after them moves with the text.
  const int message_calls = segment_calls_[a];
  const int message_errors = segment_errors_[a];
  const size_t call_first = static_cast<size_t>(sum(segment_calls_, 0, a) + found.kept_calls);
  const size_t call_last =
      static_cast<size_t>(sum(segment_calls_, 0, a) + message_calls - found.tail_calls);
  const size_t error_first = static_cast<size_t>(sum(segment_errors_, 0, a) + found.kept_errors);
  const size_t error_last =
      static_cast<size_t>(sum(segment_errors_, 0, a) + message_errors - found.tail_errors);

  Replaced replaced;
  replaced.old_calls.assign(std::make_move_iterator(result_.calls.begin() + call_first),
                            std::make_move_iterator(result_.calls.begin() + call_last));
  replaced.old_hashes.assign(hashes_.begin() + call_first, hashes_.begin() + call_last);
  replaced.new_hashes = found.content_hashes;
  replaced.new_begin = call_first;
  replaced.new_count = found.calls.size();

  const int message = static_cast<int>(a) - 1;
  for (auto& call : found.calls) call.message = message;
  const size_t fresh_calls = found.calls.size();
  const size_t fresh_errors = found.errors.size();
  segment_calls_[a] = found.kept_calls + static_cast<int>(fresh_calls) + found.tail_calls;
  segment_errors_[a] = found.kept_errors + static_cast<int>(fresh_errors) + found.tail_errors;
  splice(result_.calls, call_first, call_last, std::move(found.calls));
  splice(hashes_, call_first, call_last, std::move(found.content_hashes));
  splice(result_.errors, error_first, error_last, std::move(found.errors));
  if (shift != 0) {
    for (size_t i = call_first + fresh_calls; i < result_.calls.size(); ++i) {
      shift_call(result_.calls[i], shift);
    }
    for (size_t i = error_first + fresh_errors; i < result_.errors.size(); ++i) {
      ParseError& error = result_.errors[i];
      error.start += shift;
      error.end += shift;
      error.line += shift;
    }
    for (size_t i = a + 1; i < segments_.size(); ++i) {
      Segment& s = segments_[i];
      s.start += shift;
      s.end += shift;
      if (s.unclosed_row >= 0) s.unclosed_row += shift;
    }
  }
  // Segment a is message a - 1: it keeps its start, its end is the fresh one.
  result_.messages[a - 1].end = fresh.end;
  for (size_t i = a; i < result_.messages.size(); ++i) {
    result_.messages[i].start += shift;
    result_.messages[i].end += shift;
  }
  segments_[a] = fresh;
  segment_steps_[a] = std::move(found.steps);
  return replaced;
}

// Ids count earlier identical calls (SPEC 3), so only calls identical to a removed or added
// one can change id, and only those from the replaced ones down: the calls above keep theirs,
// and how many of each kind they hold is what is counted in all minus what is below. An edit at
// the end of a long chat (an agent's block, its result) renumbers nothing above it.
ParseDelta IncrementalParser::renumber_and_diff(Replaced replaced) {
  for (uint64_t hash : replaced.old_hashes) {
    if (--identical_[hash] == 0) identical_.erase(hash);
  }
  for (uint64_t hash : replaced.new_hashes) ++identical_[hash];

  // Usually one or two hashes: a sorted vector beats a hash set.
  std::vector<uint64_t> affected = replaced.old_hashes;
  affected.insert(affected.end(), replaced.new_hashes.begin(), replaced.new_hashes.end());
  std::sort(affected.begin(), affected.end());
  affected.erase(std::unique(affected.begin(), affected.end()), affected.end());
  auto is_affected = [&](uint64_t hash) {
    return std::binary_search(affected.begin(), affected.end(), hash);
  };

  std::unordered_map<std::string, const ToolCall*> before;  // old id -> old replaced call
  std::unordered_set<std::string> old_ids;
  for (const auto& call : replaced.old_calls) {
    before.emplace(call.id, &call);
    old_ids.insert(call.id);
  }
  const size_t new_begin = replaced.new_begin;
  const size_t new_end = new_begin + replaced.new_count;
  std::vector<size_t> renumbered;            // indices of the calls whose id is recomputed
  std::unordered_map<uint64_t, int> next_k;  // counts those below first, then those above
  for (size_t i = new_begin; i < result_.calls.size(); ++i) {
    if (!is_affected(hashes_[i])) continue;
    renumbered.push_back(i);
    --next_k[hashes_[i]];
    if (i >= new_end) old_ids.insert(result_.calls[i].id);
  }
  for (auto& [hash, k] : next_k) k += identical_calls(hash);

  std::unordered_set<std::string> new_ids;
  ParseDelta delta;
  for (size_t i : renumbered) {
    ToolCall& call = result_.calls[i];
    call.id = call_id_from_hash(hashes_[i], next_k[hashes_[i]]++);
    new_ids.insert(call.id);
    if (!old_ids.count(call.id)) {
      delta.added.push_back(call.id);
    } else if (i < new_end) {
      auto old = before.find(call.id);
      if (old != before.end() && !same_call(*old->second, call)) delta.changed.push_back(call.id);
    }
  }
  for (const auto& id : old_ids) {
    if (!new_ids.count(id)) delta.removed.push_back(id);
  }
  std::sort(delta.removed.begin(), delta.removed.end());
  return delta;
}

int IncrementalParser::identical_calls(uint64_t content_hash) const {
  auto it = identical_.find(content_hash);
  return it == identical_.end() ? 0 : it->second;
}

}  // namespace toolhost::parse
