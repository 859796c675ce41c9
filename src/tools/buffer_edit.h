#pragma once
// Edits of a file that Neovim has loaded go to its buffer, not to the disk (SPEC 7 and the
// tools issue): the user never meets "file changed on disk" in the middle of an edit, and the
// edit is one undo step. The buffer is written only if it had no unsaved changes before.

#include <uv.h>

#include <functional>
#include <string>
#include <vector>

#include "core/result.h"
#include "jobs/types.h"
#include "tools/editor.h"

namespace toolhost::tools {

// The smallest run of lines that turns `before` into `after`: rows [first, last) of `before`
// become `lines`.
struct LineChange {
  int first = 0;
  int last = 0;
  std::vector<std::string> lines;
};
LineChange changed_lines(const std::vector<std::string>& before,
                         const std::vector<std::string>& after);

// A file's text as buffer lines: split at "\n", a "\r" before it dropped, no line for a final
// newline.
std::vector<std::string> text_lines(const std::string& text);

struct BufferEdit {
  std::string path;   // absolute, resolved: how the editor finds the buffer
  std::string shown;  // the path as the call wrote it, for messages
  // The new text from the old (the buffer's lines joined, with a final newline).
  std::function<core::Result<std::string>(const std::string&)> edit;
  // The result's line for the new text ("Wrote 3 lines to a.txt").
  std::function<std::string(const std::string&)> summary;
  // The same edit on disk, when no buffer has the file.
  jobs::TaskFunction on_disk;
};

// The job's function: asks the editor for the buffer that has `edit.path`, applies the edit
// there, or runs `on_disk` on the threadpool of `loop` when none has it.
jobs::AsyncFunction edit_loaded_or_disk(Editor& editor, uv_loop_t* loop, BufferEdit edit);

}  // namespace toolhost::tools
