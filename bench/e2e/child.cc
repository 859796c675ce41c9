// toolhost_bench_child: the processes the end-to-end benchmarks run, so that what a job does
// costs the same whoever starts it (toolhost, the Lua runner, a bare posix_spawn).
//   now FILE          writes CLOCK_REALTIME (ns) at entry into FILE: when exec was done
//   exit-after MS FILE  sleeps MS, writes CLOCK_REALTIME into FILE, exits: when it exited
//   flood BYTES [LEN]  writes BYTES of lines LEN bytes long (newline included) to stdout
//   gcclog LINES FILES FILE  writes LINES lines of gcc's output (an error, warning or note
//                      over FILES source files, each with gcc's source excerpt and caret
//                      lines) to stdout, then CLOCK_REALTIME into FILE: when it was done
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

uint64_t realtime_ns() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

int stamp(const char* file, uint64_t ns) {
  std::string text = std::to_string(ns) + "\n";
  int fd = ::open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return 1;
  bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ::close(fd);
  return ok ? 0 : 1;
}

int flood(uint64_t bytes, size_t line) {
  if (line < 1) line = 1;
  // A block of whole lines, written as often as needed (the last write cut short).
  std::string block;
  while (block.size() + line <= 256 * 1024) {
    block.append(line - 1, 'x');
    block.push_back('\n');
  }
  if (block.empty()) block = std::string(line - 1, 'x') + "\n";
  while (bytes > 0) {
    size_t n = static_cast<size_t>(std::min<uint64_t>(bytes, block.size()));
    ssize_t w = ::write(1, block.data(), n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return 1;
    }
    bytes -= static_cast<uint64_t>(w);
  }
  return 0;
}

// gcc's form: the diagnostic, the source line and the caret line (what -fdiagnostics-plain-
// output would drop; the errorformat must skip them), 4 lines with the "In function" line.
int gcclog(uint64_t lines, uint64_t files) {
  static const char* const kinds[] = {"error", "warning", "note"};
  std::string out;
  char line[256];
  for (uint64_t i = 0; i < lines; i += 4) {
    const uint64_t item = i / 4;
    const uint64_t file = item % (files ? files : 1);
    const uint64_t row = 10 + item / (files ? files : 1);
    int n = std::snprintf(line, sizeof line,
                          "src/mod%03llu/unit.c: In function 'f%llu':\n"
                          "src/mod%03llu/unit.c:%llu:5: %s: 'x%llu' undeclared (first use in "
                          "this function)\n"
                          "  %llu |     x%llu = 1;\n"
                          "      |     ^~\n",
                          static_cast<unsigned long long>(file),
                          static_cast<unsigned long long>(item),
                          static_cast<unsigned long long>(file), static_cast<unsigned long long>(row),
                          kinds[item % 3], static_cast<unsigned long long>(item),
                          static_cast<unsigned long long>(row), static_cast<unsigned long long>(item));
    out.append(line, static_cast<size_t>(n));
    if (out.size() >= 64 * 1024 || i + 4 >= lines) {
      if (std::fwrite(out.data(), 1, out.size(), stdout) != out.size()) return 1;
      out.clear();
    }
  }
  return std::fflush(stdout) == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const uint64_t entry = realtime_ns();
  std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "now" && argc == 3) return stamp(argv[2], entry);
  if (mode == "exit-after" && argc == 4) {
    uint64_t ms = std::strtoull(argv[2], nullptr, 10);
    timespec ts{static_cast<time_t>(ms / 1000), static_cast<long>((ms % 1000) * 1000000)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
    return stamp(argv[3], realtime_ns());
  }
  if (mode == "flood" && (argc == 3 || argc == 4)) {
    return flood(std::strtoull(argv[2], nullptr, 10),
                 argc == 4 ? std::strtoul(argv[3], nullptr, 10) : 1024);
  }
  if (mode == "gcclog" && argc == 5) {
    int rc = gcclog(std::strtoull(argv[2], nullptr, 10), std::strtoull(argv[3], nullptr, 10));
    return rc ? rc : stamp(argv[4], realtime_ns());
  }
  std::fprintf(stderr,
               "usage: %s now FILE | exit-after MS FILE | flood BYTES [LINE_BYTES] | "
               "gcclog LINES FILES FILE\n",
               argv[0]);
  return 2;
}
