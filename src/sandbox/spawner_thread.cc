#include "sandbox/spawner_thread.h"

#include <linux/seccomp.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace toolhost::sandbox {

std::unique_ptr<SpawnerThread> SpawnerThread::start(const sock_fprog& filter, std::string& error) {
  std::unique_ptr<SpawnerThread> spawner(new SpawnerThread);
  // The thread needs `filter` only until it has installed it, which start() waits for.
  spawner->thread_ = std::thread(&SpawnerThread::run, spawner.get(), &filter);
  std::unique_lock<std::mutex> lock(spawner->mutex_);
  spawner->changed_.wait(lock, [&] { return spawner->started_; });
  if (spawner->start_error_ != 0) {
    error = std::string("seccomp on the spawner thread: ") + std::strerror(spawner->start_error_);
    lock.unlock();
    spawner->thread_.join();  // it ended after saying why
    spawner->thread_ = std::thread();
    return nullptr;
  }
  return spawner;
}

SpawnerThread::~SpawnerThread() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

int SpawnerThread::spawn(ChildPlan& plan, pid_t& pid) {
  std::lock_guard<std::mutex> one_at_a_time(callers_);
  std::unique_lock<std::mutex> lock(mutex_);
  plan_ = &plan;
  answered_ = false;
  changed_.notify_all();
  changed_.wait(lock, [&] { return answered_; });
  pid = pid_;
  return result_;
}

void SpawnerThread::run(const sock_fprog* filter) {
  // Signals go to the host's own threads; and this one's children start with all blocked.
  sigset_t all;
  sigfillset(&all);
  ::pthread_sigmask(SIG_SETMASK, &all, nullptr);
  int error = 0;
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
      ::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, filter) != 0) {
    error = errno;
  }
  std::unique_lock<std::mutex> lock(mutex_);
  started_ = true;
  start_error_ = error;
  changed_.notify_all();
  if (error != 0) return;
  for (;;) {
    changed_.wait(lock, [&] { return stopping_ || plan_ != nullptr; });
    if (stopping_) return;
    ChildPlan& plan = *plan_;
    plan_ = nullptr;
    lock.unlock();
    pid_t pid = -1;
    int result = start_child(plan, pid);
    lock.lock();
    pid_ = pid;
    result_ = result;
    answered_ = true;
    changed_.notify_all();
  }
}

}  // namespace toolhost::sandbox
