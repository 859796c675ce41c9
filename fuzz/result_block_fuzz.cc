// Fuzzes the result block (SPEC 10.4) with hostile output: a JobInfo with fuzzed stdout,
// stderr and error bytes, status, exit code or signal, max_lines and part. Checked, besides
// not crashing:
//   - the block reads back, by result_block_at and by the whole parser after an executed call,
//     as one result block with the job's id, tool, status and part that ends at its own fence:
//     no body line closes the fence early, none starts a message;
//   - every body line is valid UTF-8 without control characters (tab aside), so Neovim takes
//     it as one line;
//   - a process's output is capped: each stream's shown lines and the counts of the omission
//     lines add up to the lines it wrote, and together they keep to max_lines.
// Layout: 5 option bytes (see below), then the output; stdout and stderr split at byte 4.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/tool_table.h"
#include "parse/messages.h"
#include "parse/parser.h"
#include "parse/results.h"
#include "results/result_block.h"

namespace {

using namespace toolhost;
using core::Status;

void check(bool ok) {
  if (!ok) __builtin_trap();
}

// Independent of the cleaner: well-formed UTF-8 (no overlongs, surrogates or code points past
// U+10FFFF), no C0 controls but tab, no DEL, no C1 controls.
bool clean_utf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if ((c < 0x20 && c != '\t') || c == 0x7f) return false;
      ++i;
      continue;
    }
    size_t n = 0;
    uint32_t cp = 0;
    if ((c & 0xe0) == 0xc0) {
      n = 2, cp = c & 0x1f;
    } else if ((c & 0xf0) == 0xe0) {
      n = 3, cp = c & 0x0f;
    } else if ((c & 0xf8) == 0xf0) {
      n = 4, cp = c & 0x07;
    } else {
      return false;
    }
    if (i + n > s.size()) return false;
    for (size_t k = 1; k < n; ++k) {
      const auto b = static_cast<unsigned char>(s[i + k]);
      if ((b & 0xc0) != 0x80) return false;
      cp = (cp << 6) | (b & 0x3f);
    }
    const uint32_t min[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < min[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false;
    if (cp >= 0x80 && cp <= 0x9f) return false;
    i += n;
  }
  return true;
}

// CommonMark, independently of parse/text: at most 3 spaces, a run of `length` or more
// backticks, then only spaces and tabs.
bool closes(std::string_view line, size_t length) {
  size_t i = 0;
  while (i < line.size() && i < 4 && line[i] == ' ') ++i;
  if (i > 3) return false;
  size_t run = 0;
  while (i < line.size() && line[i] == '`') ++i, ++run;
  if (run < length) return false;
  for (; i < line.size(); ++i) {
    if (line[i] != ' ' && line[i] != '\t') return false;
  }
  return true;
}

uint64_t line_count(std::string_view text) {
  uint64_t n = 0;
  for (char c : text) n += c == '\n';
  return n + (!text.empty() && text.back() != '\n' ? 1 : 0);
}

// "… N lines omitted (:ToolOutput th-7) …" → N, else -1.
int64_t omitted(const std::string& line, const std::string& id) {
  const std::string head = "… ";
  const std::string tail = " lines omitted (:ToolOutput " + id + ") …";
  if (line.rfind(head, 0) != 0 || line.size() <= head.size() + tail.size()) return -1;
  if (line.compare(line.size() - tail.size(), tail.size(), tail) != 0) return -1;
  const std::string digits = line.substr(head.size(), line.size() - head.size() - tail.size());
  if (digits.find_first_not_of("0123456789") != std::string::npos) return -1;
  return static_cast<int64_t>(std::stoull(digits));
}

// Walks one stream's section from `at`; returns {shown lines, omitted lines}.
std::pair<uint64_t, uint64_t> section(const std::vector<std::string>& lines, size_t& at, size_t end,
                                      uint64_t total, const std::string& id) {
  uint64_t shown = 0;
  uint64_t gone = 0;
  while (shown + gone < total) {
    check(at < end);
    int64_t n = omitted(lines[at++], id);
    if (n > 0) {
      gone += static_cast<uint64_t>(n);
    } else {
      ++shown;
    }
  }
  check(shown + gone == total);
  return {shown, gone};
}

void append(jobs::Capture& capture, std::string_view data, uint32_t split) {
  while (!data.empty()) {
    size_t n = data.size();
    if (split != 0) {
      split = split * 1103515245u + 12345u;
      n = std::min<size_t>(n, 1 + (split >> 16) % 512);
    }
    capture.append(data.substr(0, n));
    data.remove_prefix(n);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 5) return 0;
  // Byte 0: status (low 4 bits), exit code (16), signal (32), a function's job (64; with 16,
  // a refusal's body), starts_message (128). Byte 1: max_lines. Byte 2: the exit code or
  // signal. Byte 3: part (low 2 bits), megabytes of output (bits 2-4 all set), error (32),
  // split appends (64, 128). Byte 4: where stderr starts, in 256ths of the rest.
  const uint8_t flags = data[0];
  const uint8_t more = data[3];
  const std::string_view rest(reinterpret_cast<const char*>(data) + 5, size - 5);
  const size_t cut = rest.size() * data[4] / 256;
  const std::string_view out = rest.substr(0, cut);
  const std::string_view err = rest.substr(cut);
  // A megabyte run takes ~0.1 s: only one input in 16 that asks gets it, by a hash of the
  // whole input, so that mutants of such an input mostly do not and the fuzzer keeps its pace.
  uint32_t hash = 2166136261u;
  for (size_t i = 0; i < size; ++i) hash = (hash ^ data[i]) * 16777619u;
  const bool huge = (more & 0x1c) == 0x1c && hash % 16 == 0;
  const bool function = (flags & 64) != 0;

  jobs::JobInfo job;
  job.id = "th-7";
  job.number = 7;
  job.spec.tool = function ? "read_file" : "run_terminal_command";
  if (function) job.spec.task = [] { return jobs::TaskOutcome{}; };
  job.spec.timeout_ms = 120000;
  job.status = static_cast<Status>((flags & 15) % (static_cast<int>(Status::Interrupted) + 1));
  if (flags & 16) job.exit_code = static_cast<int8_t>(data[2]);
  if (flags & 32) job.term_signal = data[2] % 70;
  if (more & 32) job.error = std::string(err.substr(0, 300));
  job.duration_s = data[2] * 0.37;
  append(job.out, out, more & 64 ? data[2] + 1u : 0);
  append(job.err, err, more & 128 ? data[2] + 7u : 0);
  uint64_t out_total = line_count(out);
  if (huge) {
    // Past the head and the tail a Capture keeps, so lines are lost in between: plain filler
    // lines (cleaning a megabyte of fuzzed bytes would slow every run down), then the fuzzed
    // stdout once more, so that it is in the tail too.
    const std::string line = std::string(4 + data[2] % 97, 'x') + "\n";
    const size_t target = jobs::Capture::kHeadBytes + jobs::Capture::kTailBytes + 4096;
    std::string filler;
    filler.reserve(target + line.size());
    while (filler.size() < target) filler += line;
    job.out.append(filler);
    append(job.out, out, 0);
    const std::string all = std::string(out) + filler + std::string(out);
    out_total = line_count(all);
  }
  const uint64_t err_total = line_count(err);

  results::ResultOptions options;
  options.max_lines = data[1];
  options.part = more & 3;
  const core::RoleNames roles;
  if (flags & 128) {
    options.starts_message = [&roles](std::string_view line) {
      return parse::role_header(line, roles).has_value();
    };
  }
  // A function's job with an exit code: the body of a refused call, the error its reason.
  const bool refused = (flags & (16 | 64)) == (16 | 64);
  std::vector<std::string> body =
      refused ? results::refused_body(job.error) : results::job_body(job, options);
  const std::vector<std::string> lines = results::result_block(job, body, options);

  // The fences.
  check(lines.size() >= 2);
  const std::string& fence = lines.back();
  check(fence.size() >= 4 && fence.find_first_not_of('`') == std::string::npos);
  check(lines[0].rfind(fence + "result id=th-7 ", 0) == 0);
  check(lines[0].size() > fence.size() && lines[0][fence.size()] != '`');
  for (size_t i = 1; i + 1 < lines.size(); ++i) {
    check(clean_utf8(lines[i]));
    check(!closes(lines[i], fence.size()));
  }

  // Read back alone, then after a call in a chat.
  const int rows = static_cast<int>(lines.size());
  auto block = parse::result_block_at(lines, 0, rows);
  check(block && block->start == 0 && block->end == rows);
  check(block->job_id == job.id && block->tool == job.spec.tool);
  check(block->status == core::to_string(job.status) && block->part == options.part);

  std::vector<std::string> chat{"USER: go", "ASSISTANT: Let me check.", "", "✓ Executed: `ls`"};
  const int first = static_cast<int>(chat.size());
  chat.insert(chat.end(), lines.begin(), lines.end());
  chat.push_back("USER: next");
  parse::Options parse_options;
  parse_options.tools = core::builtin_tool_table();
  parse::ParseResult parsed = parse::parse(chat, parse_options);
  check(parsed.messages.size() == 3 && parsed.errors.empty());
  check(parsed.calls.size() == 1 && parsed.calls[0].result);
  const core::ResultRef& ref = *parsed.calls[0].result;
  check(ref.start == first && ref.end == first + rows && ref.job_id == job.id);

  // The cap, for a process's output (a function's text is bounded by the tool itself). The
  // accounting needs omission lines told apart from output lines that look like them.
  if (function || refused || !job.error.empty() ||
      rest.find("lines omitted") != std::string_view::npos) {
    return 0;
  }
  const uint64_t budget = options.max_lines;
  uint64_t out_keep = out_total;
  uint64_t err_keep = err_total;
  if (out_total + err_total > budget) {
    err_keep = std::min<uint64_t>({err_total, 50, budget});
    out_keep = budget - err_keep;
  }
  size_t at = 1 + (job.term_signal || job.exit_code ? 1 : 0) + (job.status == Status::TimedOut);
  const size_t end = lines.size() - 1;
  uint64_t shown = 0;
  if (out_total > 0) {
    check(lines[at++] == "Stdout:");
    auto [n, gone] = section(lines, at, end, out_total, job.id);
    check(n <= out_keep && (huge || n == std::min(out_total, out_keep)));
    shown += n;
  }
  if (err_total > 0) {
    check(lines[at++] == "Stderr:");
    auto [n, gone] = section(lines, at, end, err_total, job.id);
    check(n == std::min(err_total, err_keep));
    shown += n;
  }
  check(at == end);
  if (out_total + err_total > budget) check(shown <= budget);
  check(lines.size() <= budget + 2 + 2 + 2 + 6);
  return 0;
}
