#include "jobs/host_id.h"

#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <ctime>
#include <fstream>
#include <sstream>
#include <string>

#include "jobs/job_json.h"

namespace toolhost::jobs {

uint64_t process_start_time(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // The command name (field 2) may hold spaces and parentheses: count from the last ')'.
  size_t paren = text.rfind(')');
  if (paren == std::string::npos) return 0;
  std::istringstream fields(text.substr(paren + 1));
  std::string field;
  for (int i = 3; i <= 22 && fields >> field; ++i) {
    if (i == 22) return std::strtoull(field.c_str(), nullptr, 10);
  }
  return 0;
}

uint64_t boot_ticks() {
  timespec now{};
  ::clock_gettime(CLOCK_BOOTTIME, &now);
  // The kernel's nsec_to_clock_t: nanoseconds divided by a tick's, truncated.
  const uint64_t tick_ns = 1000000000ull / static_cast<uint64_t>(::sysconf(_SC_CLK_TCK));
  return (static_cast<uint64_t>(now.tv_sec) * 1000000000ull + static_cast<uint64_t>(now.tv_nsec)) /
         tick_ns;
}

nlohmann::json host_id(int pid) {
  return {{"pid", pid}, {"start", process_start_time(pid)}};
}

nlohmann::json this_host() {
  return host_id(static_cast<int>(::getpid()));
}

bool host_alive(const nlohmann::json& host) {
  if (!host.is_object()) return false;
  const int pid = number_or(host, "pid", 0);
  const uint64_t start = number_or(host, "start", uint64_t{0});
  if (pid <= 0) return false;
  if (::kill(pid, 0) != 0 && errno == ESRCH) return false;
  uint64_t now = process_start_time(pid);
  return now == 0 || start == 0 || now == start;
}

}  // namespace toolhost::jobs
