#pragma once
// Reading a transcript file and a JSON config file the way Neovim would see them, and writing
// a transcript back without changing what the run did not change.

#include <string>
#include <vector>

#include "core/config.h"
#include "core/result.h"

namespace toolhost::cli {

// The file's lines as nvim_buf_get_lines() would return them: split at "\n", no line for
// the final newline, a "\r" before "\n" dropped (fileformat=dos); or why it cannot be read.
core::Result<std::vector<std::string>> read_lines(const std::string& path);

// The options in a JSON config file (an empty path gives the defaults).
core::Result<core::Config> read_config(const std::string& path);

// A transcript with what it takes to write it back byte for byte: `lines` joined with
// "\r\n" or "\n", plus a final one when the file had it.
struct Transcript {
  std::vector<std::string> lines;
  bool crlf = false;  // every line ended in "\r\n" (Vim's fileformat=dos); then lines hold no "\r"
  bool final_newline = true;
};

// Vim's rule, so that any file round-trips: CRLF only when no line ends in a bare "\n";
// in a mixed file a "\r" stays part of its line (as Neovim shows `^M`).
Transcript split_transcript(const std::string& text);
std::string join_transcript(const Transcript& transcript);
// The file's bytes, or why it cannot be read.
core::Result<std::string> read_file_text(const std::string& path);
// Replaces the file at `path` (a symlink's target) by `text` with one rename(): a temporary
// file in the same directory, with the old file's mode, synced first. A crash leaves the old
// file or the new one, never half of either.
core::Result<bool> write_file_atomically(const std::string& path, const std::string& text);

}  // namespace toolhost::cli
