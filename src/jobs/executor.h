#pragma once
// What runs a job (SPEC 6): a child process, several in sequence (a custom tool's `cmds`), or
// a function on libuv's threadpool (a file tool). All give the engine the same events, so ids,
// the queue, history, output capture, logs, timeouts and cancel work the same for each.
//
// An executor owns its libuv handles; it tells its owner `closed` once nothing of it is in
// flight any more, and only then may it be destroyed (the owner may destroy it inside `closed`).

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "jobs/types.h"

namespace toolhost::jobs {

class Executor {
 public:
  struct Events {
    std::function<void(Stream, std::string_view)> output;
    std::function<void()> finished;  // the job's status is final (exactly once)
    std::function<void()> closed;    // nothing in flight: destroy now
  };

  virtual ~Executor() = default;

  // Starts the job with these environment entries ("KEY=value"). On failure sets info.error,
  // returns false, and reports `finished` from the next loop iteration (never from inside).
  virtual bool start(const std::vector<std::string>& environment) = 0;
  // Cancel / timeout: the job ends with status `reason`, its processes (if any) get SIGTERM,
  // SIGKILL after `grace_ms`. False (no status change) when the job has already ended.
  virtual bool terminate(Status reason, uint64_t grace_ms) = 0;
  // Shutdown: whatever is left gets SIGTERM now and SIGKILL no later than `grace_ms` from now.
  virtual void hurry(uint64_t grace_ms) = 0;
  // After `finished`: releases what it holds; `closed` follows.
  virtual void close() = 0;
};

}  // namespace toolhost::jobs
