#include "cli/run_rewrite.h"

#include <algorithm>

#include "parse/messages.h"
#include "results/executed_form.h"
#include "results/result_block.h"

namespace toolhost::cli {
namespace {

results::ResultOptions result_options(const core::Config& config, int part) {
  results::ResultOptions options;
  options.max_lines = config.output.max_lines;
  options.part = part;
  const core::RoleNames roles = config.roles;
  options.starts_message = [roles](std::string_view line) {
    return parse::role_header(line, roles).has_value();
  };
  return options;
}

// Session::place_after_earlier_parts on a parse instead of extmarks: the results of the
// block's lower parts are already in `calls`.
int insertion_row(const std::vector<parse::ToolCall>& calls, const parse::ToolCall& call) {
  int row = call.end;
  for (const auto& other : calls) {
    if (other.start != call.start || other.end != call.end || other.part >= call.part) continue;
    if (other.result) row = std::max(row, other.result->end);
  }
  return row;
}

}  // namespace

std::vector<std::string> result_body(const jobs::JobInfo& job, const core::Config& config) {
  return results::job_body(job, result_options(config, 0));
}

void write_result(std::vector<std::string>& lines, const std::vector<parse::ToolCall>& calls,
                  const parse::ToolCall& call, const jobs::JobInfo& job,
                  std::vector<std::string> body, const core::Config& config) {
  std::vector<std::string> result =
      results::result_block(job, std::move(body), result_options(config, call.part));
  if (results::keeps_block(call)) {
    int row = insertion_row(calls, call);
    lines.insert(lines.begin() + row, result.begin(), result.end());
    return;
  }
  std::vector<std::string> block(lines.begin() + call.start, lines.begin() + call.end);
  std::vector<std::string> rewritten = results::executed_form(call, block, job.status);
  rewritten.insert(rewritten.end(), result.begin(), result.end());
  lines.erase(lines.begin() + call.start, lines.begin() + call.end);
  lines.insert(lines.begin() + call.start, rewritten.begin(), rewritten.end());
}

}  // namespace toolhost::cli
