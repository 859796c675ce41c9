#include "results/sandbox_notes.h"

#include <algorithm>
#include <cctype>
#include <csignal>
#include <string_view>

namespace toolhost::results {
namespace {

// Whether `text` holds `words` (lowercase), compared case-insensitively in place: the tail
// of a job's output is up to a MiB, and a failed job is checked for its diagnostic and its
// result alike.
bool holds(std::string_view text, std::string_view words) {
  return std::search(text.begin(), text.end(), words.begin(), words.end(), [](char a, char b) {
           return std::tolower(static_cast<unsigned char>(a)) == b;
         }) != text.end();
}

// The words of a denial, as the tools print them (strerror of EACCES, EPERM, EROFS; seccomp's
// and Landlock's names in their messages).
bool speaks_of_denial(std::string_view text) {
  for (std::string_view words : {"permission denied", "operation not permitted",
                                 "read-only file system", "seccomp", "landlock", "sandbox"}) {
    if (holds(text, words)) return true;
  }
  return false;
}

}  // namespace

bool likely_denied(const jobs::JobInfo& job) {
  if (job.sandbox.empty() || job.status != core::Status::Failed) return false;
  if (job.term_signal && *job.term_signal == SIGSYS) return true;
  for (const jobs::Capture* stream : {&job.out, &job.err}) {
    if (speaks_of_denial(stream->head()) || speaks_of_denial(stream->tail())) return true;
  }
  return !job.error.empty() && speaks_of_denial(job.error);
}

std::vector<std::string> sandbox_lines(const jobs::JobInfo& job) {
  std::vector<std::string> lines;
  if (job.sandbox.empty()) return lines;
  if (likely_denied(job)) {
    lines.push_back("Sandbox: ran in the sandbox (" + job.sandbox +
                    "); likely denied. Ask the user: :ToolRun on this block runs it again "
                    "outside the sandbox once they approve.");
  }
  for (const std::string& name : job.moved_aside) {
    lines.push_back("Sandbox: the command created " + name +
                    ", which an editor, git or an agent would run later: moved aside.");
  }
  return lines;
}

}  // namespace toolhost::results
