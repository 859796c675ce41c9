#pragma once
// What a sandboxed job (JobSpec::sandbox) needs around its process: before the spawn, an
// environment without the variables that lead out of the sandbox and a TMPDIR of its own, and
// the protected names that exist; after it ended, those it created moved aside, since no
// read-only bind could cover a name that did not exist yet (`.envrc`, `.nvim.lua`, `.git`), at
// the root or below it (`sub/.envrc`).

#include <time.h>

#include <string>
#include <vector>

#include "jobs/types.h"

namespace toolhost::jobs {

class SandboxedRun {
 public:
  // The environment for the job `info`: `inherited` cleaned, TMPDIR its own; records the
  // protected names. nullptr and `error` when its temp dir cannot be made.
  const std::vector<std::string>* begin(const JobInfo& info,
                                        const std::vector<std::string>& inherited,
                                        std::string& error);
  // After the job ended: moves aside what it created (info.moved_aside says so), notes where it
  // ran (info.sandbox), removes its temp dir. Nothing when begin() did not succeed.
  void end(JobInfo& info);

 private:
  bool begun_ = false;  // end() compares with what begin() saw, never with nothing
  std::vector<std::string> protected_before_;
  timespec started_{};  // the coarse clock file times come from, before the spawn
  std::vector<std::string> environment_;
  std::string tmpdir_;
};

}  // namespace toolhost::jobs
