#include "tools/buffer_edit.h"

#include <algorithm>
#include <memory>

#include "jobs/task.h"

namespace toolhost::tools {

LineChange changed_lines(const std::vector<std::string>& before,
                         const std::vector<std::string>& after) {
  size_t head = 0;
  while (head < before.size() && head < after.size() && before[head] == after[head]) ++head;
  size_t tail = 0;
  while (tail < before.size() - head && tail < after.size() - head &&
         before[before.size() - 1 - tail] == after[after.size() - 1 - tail]) {
    ++tail;
  }
  LineChange change;
  change.first = static_cast<int>(head);
  change.last = static_cast<int>(before.size() - tail);
  change.lines.assign(after.begin() + static_cast<long>(head),
                      after.end() - static_cast<long>(tail));
  return change;
}

std::vector<std::string> text_lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(std::move(line));
    start = end + 1;
  }
  return lines;
}

namespace {

std::string joined(const std::vector<std::string>& lines) {
  std::string text;
  for (const auto& line : lines) text += line + "\n";
  return text;
}

core::Result<std::vector<std::string>> string_list(const nlohmann::json& value) {
  if (!value.is_array()) return core::error("the editor sent no lines");
  std::vector<std::string> out;
  for (const auto& item : value) {
    if (!item.is_string()) return core::error("the editor sent a line that is not text");
    out.push_back(item.get<std::string>());
  }
  return out;
}

// Applies the edit to the buffer the editor found (its lines, changedtick, modified flag).
void edit_buffer_text(Editor& editor, const BufferEdit& edit, const nlohmann::json& buffer,
                      jobs::TaskDone done) {
  auto failed = [&](const std::string& why) { done(jobs::TaskOutcome{1, "", why}); };
  auto before = string_list(buffer.value("lines", nlohmann::json()));
  if (!before) return failed(before.error());
  auto text = edit.edit(joined(*before));
  if (!text) return failed("`" + edit.shown + "`: " + text.error());
  LineChange change = changed_lines(*before, text_lines(*text));
  const bool save = !buffer.value("modified", false);
  std::string summary = edit.summary(*text);
  nlohmann::json args = {{"buf", buffer.value("buf", 0)}, {"tick", buffer.value("tick", 0)},
                         {"first", change.first},         {"last", change.last},
                         {"lines", change.lines},         {"save", save}};
  editor.call("set_text", std::move(args),
              [done, save, summary](core::Result<nlohmann::json> reply) {
                if (!reply) return done(jobs::TaskOutcome{1, "", reply.error()});
                std::string where = save ? " (in its buffer, saved)"
                                         : " (in its buffer, not saved: it had unsaved changes)";
                done(jobs::TaskOutcome{0, summary + where + "\n", ""});
              });
}

}  // namespace

jobs::AsyncFunction edit_loaded_or_disk(Editor& editor, uv_loop_t* loop, BufferEdit edit) {
  auto shared = std::make_shared<BufferEdit>(std::move(edit));
  return [&editor, loop, shared](jobs::TaskDone done) {
    editor.call("buffer_text", {{"path", shared->path}},
                [&editor, loop, shared, done](core::Result<nlohmann::json> reply) {
                  if (!reply) return done(jobs::TaskOutcome{1, "", reply.error()});
                  if (!reply->value("loaded", false)) {
                    return jobs::run_on_threadpool(loop, shared->on_disk, done);
                  }
                  edit_buffer_text(editor, *shared, *reply, done);
                });
  };
}

}  // namespace toolhost::tools
