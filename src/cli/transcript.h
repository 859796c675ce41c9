#pragma once
// Reading a transcript file and a JSON config file the way Neovim would see them.

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

}  // namespace toolhost::cli
