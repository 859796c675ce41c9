#include "agents/call_result.h"

#include "results/format.h"
#include "results/result_block.h"

namespace toolhost::agents {
std::string join_lines(const std::vector<std::string>& lines) {
  std::string text;
  for (const auto& line : lines) {
    if (!text.empty()) text += '\n';
    text += line;
  }
  return text;
}

mcp::CallResult call_result(const jobs::JobInfo& job, const core::Config& config) {
  results::ResultOptions options;
  options.max_lines = config.output.max_lines;
  return call_result(job, results::job_body(job, options));
}

mcp::CallResult call_result(const jobs::JobInfo& job, const std::vector<std::string>& lines) {
  std::string body = join_lines(lines);
  if (job.status == core::Status::Succeeded) return {std::move(body), false};
  std::string text = job.status == core::Status::Rejected
                         ? "✗ " + job.spec.tool + ": rejected in Neovim"
                         : results::finished_message(job);
  if (!body.empty()) text += "\n" + body;
  return {std::move(text), true};
}

mcp::CallResult not_run(const std::string& reason) {
  return {join_lines(results::refused_body(reason)), true};
}

}  // namespace toolhost::agents
