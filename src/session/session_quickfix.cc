// A job's quickfix list (issue #39): what the quickfix layer needs to know of it.
#include <algorithm>

#include "quickfix/format_choice.h"
#include "session/session.h"

namespace toolhost::session {

quickfix::JobStart quickfix_start(const jobs::JobInfo& job,
                                  const std::vector<core::CustomTool>& tools) {
  const jobs::JobSpec& spec = job.spec;
  quickfix::JobStart start;
  start.call_id = spec.call_id;
  start.job_id = job.id;
  start.tool = spec.tool;
  start.cwd = spec.cwd;
  start.log_path = job.log_path;
  auto custom = std::find_if(tools.begin(), tools.end(),
                             [&](const core::CustomTool& tool) { return tool.name == spec.tool; });
  if (custom != tools.end()) start.tool_format = custom->quickfix;
  // A shell's `-c` script is read as a command line; any other argv word by word (the
  // first step of a sequence names it).
  const std::vector<std::string>& argv = !spec.argv.empty()    ? spec.argv
                                         : !spec.steps.empty() ? spec.steps.front()
                                                               : spec.argv;
  if (argv.size() == 3 && argv[1] == "-c") {
    start.command = argv[2];
    start.words = quickfix::command_words(argv[2]);
  } else {
    start.words = argv;
    for (const auto& word : argv) start.command += (start.command.empty() ? "" : " ") + word;
  }
  return start;
}

}  // namespace toolhost::session
