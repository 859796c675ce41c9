#pragma once
// What the built-in file tools do to files (SPEC 7), as plain functions: each takes the project
// root and the call's parameters and returns the body of its result block, or the error a
// `failed` result shows. Every path is confined to the root first. They block on the disk: the
// engine runs them off the loop.

#include <nlohmann/json.hpp>
#include <string>

#include "core/result.h"

namespace toolhost::tools {

// The file with line numbers (`     7\ttext`), lines start_line..end_line (1-based, inclusive,
// numbers or numeric strings) when given.
core::Result<std::string> read_file(const std::string& root, const nlohmann::json& params);

// The entries of `path` (default "."), sorted, directories suffixed `/`; `recursive` lists the
// tree (not descending into .git), `max_entries` (default 1000) caps the list.
core::Result<std::string> list_directory(const std::string& root, const nlohmann::json& params);

// `text` with every pair applied: each search text must occur exactly once (in the text as the
// earlier pairs left it), else nothing changes and the error names the pair. Search and
// replace texts written with "\n" match a CRLF file's "\r\n".
core::Result<std::string> replace_in_text(const std::string& text, const nlohmann::json& search,
                                          const nlohmann::json& replace);

// Writes `content` to `path` atomically (a temporary file in the same directory, renamed over
// it), creating missing parent directories; an existing file keeps its mode.
core::Result<std::string> write_file(const std::string& root, const std::string& path,
                                     const std::string& content);

// replace_in_text() on the file at params.path, written back atomically.
core::Result<std::string> replace_in_file(const std::string& root, const nlohmann::json& params);

// Removes the file (or the symlink itself) at params.path; never a directory.
core::Result<std::string> delete_file(const std::string& root, const nlohmann::json& params);
// Renames params.path to params.new_path, creating its parent directories; an existing
// new_path is not replaced.
core::Result<std::string> move_file(const std::string& root, const nlohmann::json& params);
// Copies the file at params.path to params.new_path (mode kept), as move_file places it.
core::Result<std::string> copy_file(const std::string& root, const nlohmann::json& params);

// The one-line results of the edits, the same for a file on disk and a loaded buffer.
std::string wrote_summary(const std::string& path, const std::string& content);
std::string replaced_summary(const std::string& path, size_t pairs);

}  // namespace toolhost::tools
