#include "sandbox/held_namespace.h"

#include <unistd.h>

#include "sandbox/child.h"

namespace toolhost::sandbox {

HeldNamespace::~HeldNamespace() {
  release();
}

// Jobs still running in it keep it alive; the kernel tears it down after the last one.
void HeldNamespace::release() {
  if (user_fd_ >= 0) ::close(user_fd_);
  if (mount_fd_ >= 0) ::close(mount_fd_);
  user_fd_ = mount_fd_ = -1;
  binds_.clear();
  hidden_.clear();
}

int HeldNamespace::hold(const ReadOnlyBinds& binds, const HiddenMounts& hidden, const char* uid_map,
                        const char* gid_map, std::string& failed_step) {
  if (mount_fd_ >= 0 && binds_ == binds.held() && hidden_ == hidden.held()) return 0;
  release();
  ChildPlan plan;
  plan.uid_map = uid_map;
  plan.gid_map = gid_map;
  plan.binds = binds.data();
  plan.bind_count = binds.size();
  plan.hidden = hidden.data();
  plan.hidden_count = hidden.size();
  int user_fd = -1, mount_fd = -1;
  if (int error = hold_namespace(plan, user_fd, mount_fd)) {
    failed_step = plan.failed_step ? plan.failed_step : "hold the namespace";
    if (plan.failed_path) failed_step += std::string(" (") + plan.failed_path + ")";
    return error;
  }
  user_fd_ = user_fd;
  mount_fd_ = mount_fd;
  binds_ = binds.held();
  hidden_ = hidden.held();
  return 0;
}

}  // namespace toolhost::sandbox
