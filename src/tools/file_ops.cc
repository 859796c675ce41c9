#include "tools/file_ops.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <vector>

#include "tools/confine.h"
#include "tools/params.h"

namespace toolhost::tools {
namespace {
namespace fs = std::filesystem;

// read_file holds at most this much text (the job keeps it whole in memory and writes it into
// the buffer): a bigger read needs a line range.
constexpr size_t kMaxReadBytes = 1 << 20;
constexpr size_t kDefaultMaxEntries = 1000;

// The confined absolute path of a path parameter.
core::Result<fs::path> confined(const std::string& root, const std::string& path) {
  if (auto refused = confinement_error(root, path)) return core::error(*refused);
  fs::path given(path);
  return given.is_absolute() ? given : fs::path(root) / given;
}

std::string numbered(uint64_t number, std::string_view line) {
  char prefix[32];
  std::snprintf(prefix, sizeof prefix, "%6llu\t", static_cast<unsigned long long>(number));
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return prefix + std::string(line) + "\n";
}

void list_into(const fs::path& dir, const fs::path& prefix, bool recursive, size_t max,
               std::vector<std::string>& out, bool& truncated) {
  std::vector<fs::directory_entry> entries;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) entries.push_back(entry);
  std::sort(entries.begin(), entries.end(),
            [](const auto& a, const auto& b) { return a.path().filename() < b.path().filename(); });
  for (const auto& entry : entries) {
    if (out.size() >= max) {
      truncated = true;
      return;
    }
    const fs::path name = prefix / entry.path().filename();
    const bool is_dir = entry.is_directory(ec) && !entry.is_symlink(ec);
    out.push_back(name.string() + (is_dir ? "/" : ""));
    if (recursive && is_dir && entry.path().filename() != ".git") {
      list_into(entry.path(), name, recursive, max, out, truncated);
    }
  }
}

core::Result<std::string> read_all(const fs::path& path, const std::string& shown) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return core::error("cannot read `" + shown + "`");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return text;
}

}  // namespace

core::Result<std::string> read_file(const std::string& root, const nlohmann::json& params) {
  auto path = string_param(params, "path");
  if (!path) return core::error(path.error());
  auto full = confined(root, *path);
  if (!full) return core::error(full.error());
  auto first = count_param(params, "start_line");
  auto last = count_param(params, "end_line");
  if (!first) return core::error(first.error());
  if (!last) return core::error(last.error());
  const uint64_t from = first->value_or(1);
  const uint64_t to = last->value_or(UINT64_MAX);
  if (from > to) return core::error("start_line is after end_line");
  std::error_code ec;
  if (fs::is_directory(*full, ec)) {
    return core::error("`" + *path + "` is a directory: list it with list_directory");
  }
  if (!fs::exists(*full, ec)) return core::error("`" + *path + "` does not exist");
  std::ifstream in(*full, std::ios::binary);
  if (!in) return core::error("cannot read `" + *path + "`");
  std::string out;
  std::string line;
  uint64_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (number < from) continue;
    if (number > to) break;
    if (line.find('\0') != std::string::npos) {
      return core::error("`" + *path + "` looks binary (it holds NUL bytes)");
    }
    out += numbered(number, line);
    if (out.size() > kMaxReadBytes) {
      return core::error("`" + *path + "` is too big to read at once: read a range with " +
                         "start_line and end_line");
    }
  }
  if (from > 1 && number < from) {
    return core::error("`" + *path + "` has " + std::to_string(number) + " lines, start_line is " +
                       std::to_string(from));
  }
  return out;
}

core::Result<std::string> list_directory(const std::string& root, const nlohmann::json& params) {
  auto path = string_param(params, "path", std::string("."));
  if (!path) return core::error(path.error());
  auto full = confined(root, *path);
  if (!full) return core::error(full.error());
  auto max = count_param(params, "max_entries");
  if (!max) return core::error(max.error());
  std::error_code ec;
  if (!fs::is_directory(*full, ec)) return core::error("`" + *path + "` is not a directory");
  std::vector<std::string> entries;
  bool truncated = false;
  list_into(*full, "", flag_param(params, "recursive"), max->value_or(kDefaultMaxEntries), entries,
            truncated);
  std::string out;
  for (const auto& entry : entries) out += entry + "\n";
  if (truncated) {
    out += "… more entries not shown (max_entries = " + std::to_string(entries.size()) + ")\n";
  }
  return out;
}

core::Result<std::string> write_file(const std::string& root, const std::string& path,
                                     const std::string& content) {
  auto given = confined(root, path);
  if (!given) return core::error(given.error());
  std::error_code ec;
  // Through a symlink (confined: it stays in the root) to the file it names, which the rename
  // replaces; the link stays a link.
  const fs::path target = fs::weakly_canonical(*given, ec);
  if (ec) return core::error("cannot resolve `" + path + "`: " + ec.message());
  const fs::path* full = &target;
  if (fs::is_directory(*full, ec)) return core::error("`" + path + "` is a directory");
  fs::create_directories(full->parent_path(), ec);
  if (ec) return core::error("cannot create the directory of `" + path + "`: " + ec.message());
  mode_t mode = 0644;
  struct stat st;
  if (::stat(full->c_str(), &st) == 0) mode = st.st_mode & 07777;
  std::string temp = (full->parent_path() / ("." + full->filename().string() + ".toolhost-XXXXXX"));
  int fd = ::mkstemp(temp.data());
  if (fd < 0) return core::error("cannot write `" + path + "`");
  bool ok = ::fchmod(fd, mode) == 0;
  for (size_t done = 0; ok && done < content.size();) {
    ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    ok = n > 0;
    if (ok) done += static_cast<size_t>(n);
  }
  ok = ok && ::fsync(fd) == 0;
  ok = (::close(fd) == 0) && ok;
  if (!ok || ::rename(temp.c_str(), full->c_str()) != 0) {
    ::unlink(temp.c_str());
    return core::error("cannot write `" + path + "`");
  }
  return wrote_summary(path, content);
}

core::Result<std::string> replace_in_file(const std::string& root, const nlohmann::json& params) {
  auto path = string_param(params, "path");
  if (!path) return core::error(path.error());
  auto full = confined(root, *path);
  if (!full) return core::error(full.error());
  auto text = read_all(*full, *path);
  if (!text) return core::error(text.error());
  auto replaced = replace_in_text(*text, params.value("search", nlohmann::json::array()),
                                  params.value("replace", nlohmann::json::array()));
  if (!replaced) return core::error("`" + *path + "`: " + replaced.error());
  auto written = write_file(root, *path, *replaced);
  if (!written) return core::error(written.error());
  return replaced_summary(*path, params["search"].size());
}

core::Result<std::string> insert_into_file(const std::string& root, const nlohmann::json& params) {
  auto path = string_param(params, "path");
  if (!path) return core::error(path.error());
  auto line = line_number_param(params, "line");
  if (!line) return core::error(line.error());
  auto content = string_param(params, "content");
  if (!content) return core::error(content.error());
  auto full = confined(root, *path);
  if (!full) return core::error(full.error());
  std::error_code ec;
  if (!fs::exists(*full, ec)) return core::error("`" + *path + "` does not exist");
  auto text = read_all(*full, *path);
  if (!text) return core::error(text.error());
  auto inserted = insert_in_text(*text, *line, *content);
  if (!inserted) return core::error("`" + *path + "`: " + inserted.error());
  auto written = write_file(root, *path, *inserted);
  if (!written) return core::error(written.error());
  return inserted_summary(*path, *line, *content);
}

namespace {

// The source and destination of move_file and copy_file, both confined; the destination must
// not exist yet and gets its parent directories.
struct Transfer {
  std::string from_name, to_name;
  fs::path from, to;
};

core::Result<Transfer> transfer(const std::string& root, const nlohmann::json& params) {
  auto from = string_param(params, "path");
  if (!from) return core::error(from.error());
  auto to = string_param(params, "new_path");
  if (!to) return core::error(to.error());
  auto from_full = confined(root, *from);
  if (!from_full) return core::error(from_full.error());
  auto to_full = confined(root, *to);
  if (!to_full) return core::error(to_full.error());
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(*from_full, ec))) {
    return core::error("`" + *from + "` does not exist");
  }
  if (fs::exists(fs::symlink_status(*to_full, ec))) {
    return core::error("`" + *to + "` exists already; it is not replaced");
  }
  fs::create_directories(to_full->parent_path(), ec);
  if (ec) return core::error("cannot create the directory of `" + *to + "`: " + ec.message());
  return Transfer{*from, *to, *from_full, *to_full};
}

}  // namespace

core::Result<std::string> delete_file(const std::string& root, const nlohmann::json& params) {
  auto path = string_param(params, "path");
  if (!path) return core::error(path.error());
  auto full = confined(root, *path);
  if (!full) return core::error(full.error());
  std::error_code ec;
  const fs::file_status status = fs::symlink_status(*full, ec);
  if (!fs::exists(status)) return core::error("`" + *path + "` does not exist");
  if (fs::is_directory(status)) {
    return core::error("`" + *path + "` is a directory; delete_file removes files only");
  }
  if (::unlink(full->c_str()) != 0) return core::error("cannot delete `" + *path + "`");
  return "Deleted " + *path;
}

core::Result<std::string> move_file(const std::string& root, const nlohmann::json& params) {
  auto move = transfer(root, params);
  if (!move) return core::error(move.error());
  if (::rename(move->from.c_str(), move->to.c_str()) != 0) {
    return core::error("cannot move `" + move->from_name + "` to `" + move->to_name + "`");
  }
  return "Moved " + move->from_name + " to " + move->to_name;
}

core::Result<std::string> copy_file(const std::string& root, const nlohmann::json& params) {
  auto copy = transfer(root, params);
  if (!copy) return core::error(copy.error());
  std::error_code ec;
  if (!fs::is_regular_file(copy->from, ec)) {
    return core::error("`" + copy->from_name + "` is not a file; copy_file copies files only");
  }
  fs::copy_file(copy->from, copy->to, fs::copy_options::none, ec);
  if (ec) {
    return core::error("cannot copy `" + copy->from_name + "` to `" + copy->to_name +
                       "`: " + ec.message());
  }
  return "Copied " + copy->from_name + " to " + copy->to_name;
}

}  // namespace toolhost::tools
