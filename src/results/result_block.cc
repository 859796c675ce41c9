#include "results/result_block.h"

#include <algorithm>

#include "results/format.h"
#include "results/sandbox_notes.h"
#include "results/text_clean.h"

namespace toolhost::results {
namespace {

constexpr size_t kStderrKeep = 50;

std::string omitted_line(uint64_t count, const std::string& job_id) {
  return "… " + std::to_string(count) + " lines omitted (:ToolOutput " + job_id + ") …";
}

// The end of a line whose start memory no longer holds. A terminal shows what follows its last
// '\r', and when that is all there, so is the line; else a leading `…` says the start was cut.
std::string cut_line(std::string_view end) {
  std::string_view shown = end;
  while (!shown.empty() && shown.back() == '\r') shown.remove_suffix(1);
  if (shown.find('\r') != std::string_view::npos) return clean_line(end);
  // The last characters that fit (clean_line cuts at the end what still does not: bytes
  // shown as `<xx>` take four); never from the middle of a UTF-8 sequence.
  const size_t room = kMaxLineCodePoints - 1;  // after the `…`
  if (shown.size() > room) shown.remove_prefix(shown.size() - room);
  while (!shown.empty() && (static_cast<unsigned char>(shown.front()) & 0xc0) == 0x80) {
    shown.remove_prefix(1);
  }
  return "…" + clean_line(shown, room);
}

// A stream's lines as far as memory holds them: the head, the number of lines lost between
// head and tail (0 when nothing was dropped), and the tail.
struct StreamLines {
  std::vector<std::string> head;
  uint64_t gap = 0;
  std::vector<std::string> tail;
  uint64_t total() const { return head.size() + gap + tail.size(); }
};

StreamLines stream_lines(const jobs::Capture& capture) {
  StreamLines out;
  if (capture.omitted_bytes() == 0) {
    out.head = clean_lines(capture.text());
    return out;
  }
  // The head and the tail each end (or start) in the middle of a line: drop the partial ones.
  std::string_view head = capture.head();
  head = head.substr(0, head.rfind('\n') == std::string_view::npos ? 0 : head.rfind('\n') + 1);
  std::string tail = capture.tail();
  size_t first_newline = tail.find('\n');
  out.head = clean_lines(head);
  if (first_newline == std::string::npos || first_newline + 1 == tail.size()) {
    // The last line is longer than the tail: memory holds its end only, shown cut.
    out.tail.push_back(cut_line(std::string_view(tail).substr(0, first_newline)));
  } else {
    out.tail = clean_lines(std::string_view(tail).substr(first_newline + 1));
  }
  uint64_t total = capture.lines() + (capture.ends_with_newline() ? 0 : 1);
  uint64_t kept = out.head.size() + out.tail.size();
  out.gap = total > kept ? total - kept : 0;
  return out;
}

// Keeps `first` lines from the start and `last` from the end. Every run of lines not shown
// (the cut, and lines memory no longer holds) becomes one omission line with its exact count.
void append_capped(std::vector<std::string>& out, const StreamLines& lines, uint64_t first,
                   uint64_t last, const std::string& job_id) {
  struct Range {
    uint64_t begin, end;
  };
  const uint64_t total = lines.total();
  const uint64_t head_end = lines.head.size();
  const uint64_t tail_begin = head_end + lines.gap;
  std::vector<Range> wanted;
  if (first + last >= total) {
    wanted.push_back({0, total});
  } else {
    wanted.push_back({0, first});
    wanted.push_back({total - last, total});
  }
  std::vector<Range> shown;
  for (Range w : wanted) {
    for (Range held : {Range{0, head_end}, Range{tail_begin, total}}) {
      Range r{std::max(w.begin, held.begin), std::min(w.end, held.end)};
      if (r.begin < r.end) shown.push_back(r);
    }
  }
  std::sort(shown.begin(), shown.end(), [](Range a, Range b) { return a.begin < b.begin; });
  uint64_t at = 0;
  for (Range r : shown) {
    if (r.begin > at) out.push_back(omitted_line(r.begin - at, job_id));
    for (uint64_t i = r.begin; i < r.end; ++i) {
      out.push_back(i < head_end ? lines.head[i] : lines.tail[i - tail_begin]);
    }
    at = r.end;
  }
  if (at < total) out.push_back(omitted_line(total - at, job_id));
}

size_t longest_backtick_run(const std::vector<std::string>& lines) {
  size_t longest = 0;
  for (const auto& line : lines) {
    size_t start = line.find_first_not_of(' ');
    if (start == std::string::npos || start > 3) continue;
    size_t end = line.find_first_not_of('`', start);
    longest = std::max(longest, (end == std::string::npos ? line.size() : end) - start);
  }
  return longest;
}

}  // namespace

std::vector<std::string> terminal_body(const jobs::JobInfo& job, const ResultOptions& options) {
  std::vector<std::string> body;
  // The error may quote a model's words (`cannot start `{argv[0]}``): one line of the block
  // holding a newline would end the fence early, or be refused by Neovim.
  if (!job.error.empty()) body = clean_lines("Error: " + job.error);
  if (job.term_signal) {
    body.push_back("Signal: " + signal_name(*job.term_signal));
  } else if (job.exit_code) {
    body.push_back("Exit code: " + std::to_string(*job.exit_code));
  }
  if (job.status == core::Status::TimedOut) {
    body.push_back("Timed out after " + format_timeout(job.spec.timeout_ms));
  }
  for (std::string& line : sandbox_lines(job)) body.push_back(std::move(line));
  StreamLines out = stream_lines(job.out);
  StreamLines err = stream_lines(job.err);
  uint64_t budget = options.max_lines;
  uint64_t err_keep = err.total();
  uint64_t out_keep = out.total();
  if (out.total() + err.total() > budget) {
    // SPEC 5: Stderr keeps its last <= 50 lines, Stdout the rest of the budget.
    err_keep = std::min<uint64_t>({err.total(), kStderrKeep, budget});
    out_keep = budget - err_keep;
  }
  if (out.total() > 0) {
    body.push_back("Stdout:");
    uint64_t head = out_keep / 4;
    append_capped(body, out, head, out_keep - head, job.id);
  }
  if (err.total() > 0) {
    body.push_back("Stderr:");
    append_capped(body, err, 0, err_keep, job.id);
  }
  return body;
}

std::vector<std::string> task_body(const jobs::JobInfo& job) {
  switch (job.status) {
    case core::Status::Succeeded: return clean_lines(job.out.text());
    case core::Status::TimedOut: return {"Timed out after " + format_timeout(job.spec.timeout_ms)};
    case core::Status::Canceled: return {"Canceled"};
    default: return clean_lines("Error: " + (job.error.empty() ? job.err.text() : job.error));
  }
}

std::vector<std::string> refused_body(const std::string& reason) {
  return clean_lines("Refused: " + reason);
}

std::vector<std::string> job_body(const jobs::JobInfo& job, const ResultOptions& options) {
  const bool function = job.spec.task || job.spec.async || job.spec.stream;
  return function ? task_body(job) : terminal_body(job, options);
}

std::vector<std::string> result_block(const jobs::JobInfo& job, std::vector<std::string> body,
                                      const ResultOptions& options) {
  for (auto& line : body) {
    if (options.starts_message && options.starts_message(line)) line.insert(0, " ");
  }
  std::string fence(std::max<size_t>(4, longest_backtick_run(body) + 1), '`');
  std::string header = fence + "result id=" + job.id + " tool=" + job.spec.tool +
                       " status=" + std::string(core::to_string(job.status));
  if (job.term_signal) {
    header += " signal=" + signal_name(*job.term_signal);
  } else if (job.exit_code) {
    header += " exit=" + std::to_string(*job.exit_code);
  }
  // A rejected call never ran (SPEC 10.4: `0s`).
  header += " duration=" +
            (job.status == core::Status::Rejected ? "0s" : format_duration(job.duration_s));
  if (options.part > 0) header += " part=" + std::to_string(options.part);
  std::vector<std::string> lines{header};
  lines.insert(lines.end(), body.begin(), body.end());
  lines.push_back(fence);
  return lines;
}

}  // namespace toolhost::results
