#pragma once
// A row of the allow-list tables: a command, whether it auto-runs, and a part of the reason.

namespace toolhost::tools {

struct ShellPolicyRow {
  const char* command;
  bool auto_run;
  const char* reason;  // a part of the reason
};

}  // namespace toolhost::tools
