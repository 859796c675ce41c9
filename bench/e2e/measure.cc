#include "measure.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <uv.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>

extern char** environ;

namespace toolhost::bench {

using nlohmann::json;
namespace fs = std::filesystem;

uint64_t now_ns() {
  return uv_hrtime();
}

double realtime_us() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<double>(ts.tv_sec) * 1e6 + static_cast<double>(ts.tv_nsec) / 1e3;
}

uint64_t status_field(const std::string& path, const std::string& key) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.compare(0, key.size(), key) == 0 && line.size() > key.size() &&
        line[key.size()] == ':') {
      return std::strtoull(line.c_str() + key.size() + 1, nullptr, 10);
    }
  }
  return 0;
}

double cpu_ms(pid_t pid) {
  if (pid <= 0) return 0;
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t paren = stat.rfind(')');
  if (paren == std::string::npos) return 0;
  std::istringstream fields(stat.substr(paren + 2));
  std::string field;
  double ticks = 0;
  for (int i = 3; i <= 15 && fields >> field; ++i) {
    if (i == 14 || i == 15) ticks += std::stod(field);
  }
  return ticks * 1000.0 / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

uint64_t rss_kb(pid_t pid) {
  return pid > 0 ? status_field("/proc/" + std::to_string(pid) + "/status", "VmRSS") : 0;
}

uint64_t context_switches(pid_t pid) {
  uint64_t total = 0;
  std::string dir = "/proc/" + std::to_string(pid) + "/task";
  for (const auto& task : fs::directory_iterator(dir)) {
    std::string status = task.path().string() + "/status";
    total += status_field(status, "voluntary_ctxt_switches") +
             status_field(status, "nonvoluntary_ctxt_switches");
  }
  return total;
}

double percentile(std::vector<double> values, double p) {
  if (values.empty()) return NAN;
  std::sort(values.begin(), values.end());
  size_t rank = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(values.size())));
  return values[std::min(values.size() - 1, rank == 0 ? 0 : rank - 1)];
}

json stats(const std::vector<double>& values) {
  return {{"n", values.size()},
          {"p50", percentile(values, 50)},
          {"p99", percentile(values, 99)},
          {"max", values.empty() ? NAN : *std::max_element(values.begin(), values.end())}};
}

pid_t spawn(const std::vector<std::string>& args, int stdout_fd) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  if (stdout_fd >= 0) posix_spawn_file_actions_adddup2(&actions, stdout_fd, 1);
  pid_t pid = -1;
  int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  return rc == 0 ? pid : -1;
}

int wait_for_pid(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

double read_stamp_us(const std::string& path) {
  std::ifstream in(path);
  double ns = 0;
  in >> ns;
  return ns / 1e3;
}

}  // namespace toolhost::bench
