#include "cli/run_report.h"

#include <nlohmann/json.hpp>
#include <ostream>

#include "results/format.h"

namespace toolhost::cli {
namespace {

constexpr size_t kSummaryBytes = 60;

std::string shorten(std::string text) {
  size_t newline = text.find('\n');
  bool cut = newline != std::string::npos;
  if (cut) text.resize(newline);
  if (text.size() > kSummaryBytes) {
    size_t end = kSummaryBytes;
    while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
    text.resize(end);  // not inside a UTF-8 sequence
    cut = true;
  }
  return cut ? text + "…" : text;
}

std::string where(const CallReport& report) {
  return report.tool + " (line " + std::to_string(report.line) + ")";
}

std::string outcome_word(const std::string& status) {
  if (status == "succeeded") return "ok";
  if (status == "timed_out") return "timed out";
  return status;
}

}  // namespace

CallReport report_for(const parse::ToolCall& call) {
  CallReport report;
  report.id = call.id;
  report.tool = call.tool;
  report.line = call.start + 1;
  for (const char* key : {"command", "path"}) {
    auto it = call.params.find(key);
    if (it != call.params.end() && it->is_string()) {
      report.summary = shorten(it->get<std::string>());
      break;
    }
  }
  return report;
}

Reporter::Reporter(std::ostream& out, std::ostream& err, bool json, bool progress, bool dry_run)
    : out_(out), err_(err), json_(json), progress_(progress), dry_run_(dry_run) {}

void Reporter::parse_error(const parse::ParseError& error) {
  err_ << "toolhost run: line " << error.line + 1 << ": " << error.message
       << " (this block does not run)\n";
}

void Reporter::starting(const CallReport& report, size_t index, size_t total) {
  if (!progress_ || dry_run_) return;
  err_ << "[" << index << "/" << total << "] " << report.tool;
  if (!report.summary.empty()) err_ << ": " << report.summary;
  err_ << " … " << std::flush;
}

void Reporter::finished(const CallReport& report) {
  const bool held = report.status == "held";
  const bool ok = report.status == "succeeded" || report.status == "would_run";
  (held ? held_ : ok ? (dry_run_ ? planned_ : succeeded_) : failed_)++;
  if (json_) {
    nlohmann::json line = {
        {"id", report.id},
        {"tool", report.tool},
        {"line", report.line},
        {"status", report.status},
        {"job", report.job_id.empty() ? nlohmann::json() : nlohmann::json(report.job_id)},
        {"reason", report.reason}};
    if (report.exit_code) line["exit_code"] = *report.exit_code;
    if (report.duration_s) line["duration"] = *report.duration_s;
    out_ << line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  }
  if (dry_run_) {
    if (json_) return;
    const char* verb = held ? "would hold " : ok ? "would run " : "would refuse ";
    out_ << verb << where(report) << ": " << report.reason << "\n";
    return;
  }
  if (progress_) {
    err_ << outcome_word(report.status);
    if (!ok) err_ << ": " << report.reason;
    if (report.duration_s) err_ << " (" << results::format_duration(*report.duration_s) << ")";
    err_ << "\n";
    return;
  }
  if (held) err_ << "toolhost run: held " << where(report) << ": " << report.reason << "\n";
  if (!held && !ok) {
    err_ << "toolhost run: " << outcome_word(report.status) << " " << where(report) << ": "
         << report.reason << " [" << report.job_id << "]\n";
  }
}

void Reporter::summary() {
  if (!progress_ || dry_run_) return;
  if (succeeded_ + failed_ + held_ == 0) {
    err_ << "toolhost run: nothing pending\n";
    return;
  }
  err_ << "toolhost run: " << succeeded_ << " succeeded, " << failed_ << " failed, " << held_
       << " held\n";
}

}  // namespace toolhost::cli
