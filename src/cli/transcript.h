#pragma once
// Reading a transcript file and a JSON config file the way Neovim would see them.

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace toolhost::cli {

// The file's lines as nvim_buf_get_lines() would return them: split at "\n", no line for
// the final newline, a "\r" before "\n" dropped (fileformat=dos). Empty on failure, with
// the reason in *error.
std::optional<std::vector<std::string>> read_lines(const std::string& path, std::string* error);

// The JSON object in `path` (an empty path gives an empty object).
std::optional<nlohmann::json> read_config(const std::string& path, std::string* error);

}  // namespace toolhost::cli
