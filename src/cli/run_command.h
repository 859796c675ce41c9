#pragma once
// `toolhost run FILE [--yes] [--dry-run] [--json] [--config FILE.json]`: runs a transcript's
// pending tool calls outside Neovim and writes their results into the file the way a chat
// buffer gets them (SPEC 8), with the same policy, confinement and job engine.

#include <iosfwd>
#include <string>

namespace toolhost::cli {

struct RunCommand {
  std::string file;
  std::string config_file;  // the options of setup() as JSON
  bool yes = false;         // the user's approval of every call, as :ToolRun
  bool dry_run = false;     // say what would run or be held; run and write nothing
  bool json = false;        // one JSON object per call on `out`
  bool progress = false;    // a progress line per call on `err` (stderr is a terminal)
  // The job engine's history and logs: the same XDG directories Neovim's host uses, so job ids
  // continue theirs. Empty: no history (ids start at th-1), no log files.
  std::string state_dir;
  std::string cache_dir;
  std::string root;  // paths are confined to it; empty = the current directory
};

// Exit status: 0 every call that ran succeeded (held calls do not count, nor does an empty
// run); 1 a call failed, timed out or was refused; 2 the file or the config could not be read,
// or the file could not be written; 128 + N when signal N (SIGINT, SIGTERM, SIGHUP) stopped the
// run (the running call is canceled and its result written).
int run_run_command(const RunCommand& command, std::ostream& out, std::ostream& err);

}  // namespace toolhost::cli
