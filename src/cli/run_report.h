#pragma once
// What `toolhost run` tells the user about each call: progress lines on a terminal, the held
// and failed calls otherwise, JSON lines with --json, the plan with --dry-run.

#include <cstddef>
#include <iosfwd>
#include <optional>
#include <string>

#include "parse/types.h"

namespace toolhost::cli {

// What became of one pending call.
struct CallReport {
  std::string id;  // the call's
  std::string tool;
  std::string summary;  // its command or path, short
  int line = 0;         // 1-based, in the file as it was when the call came up
  // A finished job's status (succeeded, failed, timed_out, canceled), or held, or with
  // --dry-run would_run / would_refuse.
  std::string status;
  std::string job_id;
  std::string reason;  // the rule that ran or held it, the refusal, the failure
  std::optional<int> exit_code;
  std::optional<double> duration_s;
};

CallReport report_for(const parse::ToolCall& call);

class Reporter {
 public:
  Reporter(std::ostream& out, std::ostream& err, bool json, bool progress, bool dry_run);

  void parse_error(const parse::ParseError& error);
  // Before a call runs (or is held): the start of its progress line.
  void starting(const CallReport& report, size_t index, size_t total);
  void finished(const CallReport& report);
  // The totals, on a terminal.
  void summary();

 private:
  std::ostream& out_;
  std::ostream& err_;
  bool json_;
  bool progress_;
  bool dry_run_;
  size_t succeeded_ = 0;
  size_t failed_ = 0;
  size_t held_ = 0;
  size_t planned_ = 0;
};

}  // namespace toolhost::cli
