#pragma once
// The thread a sandbox's children are cloned from. It carries NO_NEW_PRIVS and the sandbox's
// seccomp filter on itself alone (both are per thread when set without TSYNC: the host's other
// threads keep neither), so that each child inherits the filter the kernel compiled once,
// instead of installing it and paying for its JIT at every spawn (about a tenth of a sandboxed
// spawn here: bench/NOTES.md). The host's thread hands a ChildPlan over and waits for the
// clone to return, as it waits for a vfork child anyway.

#include <linux/filter.h>
#include <sys/types.h>

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "sandbox/child.h"

namespace toolhost::sandbox {

class SpawnerThread {
 public:
  // Starts the thread with `filter` on it; nullptr and `error` when the kernel refused it.
  static std::unique_ptr<SpawnerThread> start(const sock_fprog& filter, std::string& error);
  ~SpawnerThread();
  SpawnerThread(const SpawnerThread&) = delete;
  SpawnerThread& operator=(const SpawnerThread&) = delete;

  // start_child(plan, pid) on the thread: the child has the filter without installing it.
  int spawn(ChildPlan& plan, pid_t& pid);

 private:
  SpawnerThread() = default;
  void run(const sock_fprog* filter);

  std::thread thread_;
  std::mutex callers_;  // one request at a time
  std::mutex mutex_;
  std::condition_variable changed_;
  bool started_ = false;
  int start_error_ = 0;
  bool stopping_ = false;
  ChildPlan* plan_ = nullptr;  // a request, until answered
  pid_t pid_ = -1;
  int result_ = 0;
  bool answered_ = false;
};

}  // namespace toolhost::sandbox
