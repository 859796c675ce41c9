#include "jobs/sandboxed_run.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "sandbox/sandbox.h"

namespace toolhost::jobs {
namespace fs = std::filesystem;
namespace {

// Whether `path` (not followed) changed at or after `since`: created, renamed or linked there,
// or written. Its ctime, which no call sets back (utime sets the others).
bool changed_since(const fs::path& path, const timespec& since) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return false;
  return st.st_ctim.tv_sec > since.tv_sec ||
         (st.st_ctim.tv_sec == since.tv_sec && st.st_ctim.tv_nsec >= since.tv_nsec);
}

}  // namespace

const std::vector<std::string>* SandboxedRun::begin(const JobInfo& info,
                                                    const std::vector<std::string>& inherited,
                                                    std::string& error) {
  const sandbox::Sandbox& box = *info.spec.sandbox;
  protected_before_ = box.existing_protected();
  // The kernel stamps files from its coarse clock (or finer): anything the job changes is
  // stamped at or after this.
  ::clock_gettime(CLOCK_REALTIME_COARSE, &started_);
  // Beneath /tmp, which every sandbox may write, whatever the host's own TMPDIR is.
  std::string pattern = "/tmp/toolhost-" + info.id + "-XXXXXX";
  if (!::mkdtemp(pattern.data())) {
    error = "cannot create its temp dir " + pattern + ": " + std::strerror(errno);
    return nullptr;
  }
  tmpdir_ = pattern;
  environment_ = sandbox::clean_environment(inherited);
  environment_.erase(
      std::remove_if(environment_.begin(), environment_.end(),
                     [](const std::string& e) { return e.rfind("TMPDIR=", 0) == 0; }),
      environment_.end());
  environment_.push_back("TMPDIR=" + tmpdir_);
  begun_ = true;
  return &environment_;
}

void SandboxedRun::end(JobInfo& info) {
  if (!begun_) return;
  begun_ = false;
  const sandbox::Sandbox& box = *info.spec.sandbox;
  info.sandbox = box.describe();
  // The walk also refreshes what the next spawns bind below the root.
  for (const std::string& name : box.walk_protected()) {
    if (std::find(protected_before_.begin(), protected_before_.end(), name) !=
        protected_before_.end()) {
      continue;
    }
    const fs::path from = fs::path(box.root()) / name;
    // The root's names were looked up at the start: one absent then is the job's. Below the
    // root only the last walk's were known, so one made meanwhile by the user (not bound, but
    // not written since by the job either) stays theirs; from now on it is bound.
    if (name.find('/') != std::string::npos && !changed_since(from, started_)) continue;
    const std::string aside = name + ".toolhost-" + info.id;
    std::error_code ec;
    fs::rename(from, fs::path(box.root()) / aside, ec);
    info.moved_aside.push_back("`" + name + "` " +
                               (ec ? "(could not be moved aside: " + ec.message() + ")"
                                   : "(now `" + aside + "`)"));
  }
  std::error_code ec;
  if (!tmpdir_.empty()) fs::remove_all(tmpdir_, ec);  // does not follow symlinks
  tmpdir_.clear();
  environment_.clear();
}

}  // namespace toolhost::jobs
