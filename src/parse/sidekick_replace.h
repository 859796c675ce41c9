#pragma once
// The body of an llm-sidekick replacement (SPEC 10.1 and the peer forms of 2025) under a
// ``**Replace:** `path` `` or ``**Path:** `path` `` header:
//   - `**Search:**` + fence, `**Replace:**` + fence, pairs repeated;
//   - two fences right under the header: old, new;
//   - one fence (right under the header or after one blank line) holding the old text, one
//     blank line, the new text, or only the old text when the new one is empty (llm-sidekick
//     since March 2025). With several runs of blank lines the split is only known from the
//     file: the pair's search and replace items are then lists of the candidate old and new
//     texts, and replace_in_file takes the one whose old text occurs exactly once;
//   - several of those, each under `**Replacement 1:**`, `**Replacement 2:**`, ….

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "parse/reader.h"

namespace toolhost::parse {

struct Replacements {
  nlohmann::json search = nlohmann::json::array();
  nlohmann::json replace = nlohmann::json::array();
  int end_row = 0;        // the row after the last fence read
  int unclosed_row = -1;  // a fence left open: it runs to the message's end
  std::string error;      // the body is malformed: what is wrong, at error_row
  int error_row = 0;
};

// The body from `row` (the row after the header) on; nullopt when none starts there, so the
// header is prose.
std::optional<Replacements> read_replacements(const ReadContext& ctx, int row);

}  // namespace toolhost::parse
