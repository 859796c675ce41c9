#include "jobs/sandboxed_run.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "sandbox/sandbox.h"

namespace toolhost::jobs {
namespace fs = std::filesystem;

const std::vector<std::string>* SandboxedRun::begin(const JobInfo& info,
                                                    const std::vector<std::string>& inherited,
                                                    std::string& error) {
  const sandbox::Sandbox& box = *info.spec.sandbox;
  protected_before_ = box.existing_protected();
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
  for (const std::string& name : box.existing_protected()) {
    if (std::find(protected_before_.begin(), protected_before_.end(), name) !=
        protected_before_.end()) {
      continue;
    }
    const fs::path from = fs::path(box.root()) / name;
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
