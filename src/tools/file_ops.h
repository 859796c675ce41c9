#pragma once
// What the built-in file tools do to files (SPEC 7), as plain functions: each takes the project
// root and the call's parameters and returns the body of its result block, or the error a
// `failed` result shows. Every path is confined to the root first. They block on the disk: the
// engine runs them off the loop.

#include <nlohmann/json.hpp>
#include <string>

#include "core/result.h"
#include "tools/text_edits.h"

namespace toolhost::tools {

// The file with line numbers (`     7\ttext`), lines start_line..end_line (1-based, inclusive,
// numbers or numeric strings) when given.
core::Result<std::string> read_file(const std::string& root, const nlohmann::json& params);

// The entries of `path` (default "."), sorted, directories suffixed `/`; `recursive` lists the
// tree (not descending into .git), `max_entries` (default 1000) caps the list.
core::Result<std::string> list_directory(const std::string& root, const nlohmann::json& params);

// Writes `content` to `path` atomically (a temporary file in the same directory, renamed over
// it), creating missing parent directories; an existing file keeps its mode.
core::Result<std::string> write_file(const std::string& root, const std::string& path,
                                     const std::string& content);

// replace_in_text() on the file at params.path, written back atomically.
core::Result<std::string> replace_in_file(const std::string& root, const nlohmann::json& params);

// insert_in_text() on the file at params.path (params.line, params.content), written back
// atomically.
core::Result<std::string> insert_into_file(const std::string& root, const nlohmann::json& params);

// Removes the file (or the symlink itself) at params.path; never a directory.
core::Result<std::string> delete_file(const std::string& root, const nlohmann::json& params);
// Renames params.path to params.new_path, creating its parent directories; an existing
// new_path is not replaced.
core::Result<std::string> move_file(const std::string& root, const nlohmann::json& params);
// Copies the file at params.path to params.new_path (mode kept), as move_file places it.
core::Result<std::string> copy_file(const std::string& root, const nlohmann::json& params);

}  // namespace toolhost::tools
