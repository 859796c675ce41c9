#pragma once
// Splitting a buffer into messages by role headers (SPEC 3). Closed fences are opaque: a
// header-looking line inside one does not start a message; an unclosed fence ends at the next
// header.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parse/types.h"

namespace toolhost::parse {

// `## Name`, `## Name (…)`, `# Name` or `NAME: text` at column 0, with Name in `roles`. A
// heading may end in spaces and CodeCompanion's separator (`## Me ───`).
std::optional<Role> role_header(std::string_view line, const RoleNames& roles);

// The text after a `NAME:` header (without the one space after the colon), where an
// llm-sidekick reply may begin; empty for headings.
std::string_view header_rest(std::string_view line);

// The style a chat plugin's filetype implies: `codecompanion` headings, `llm-sidekick` names,
// anything else Auto.
HeaderStyle header_style_for(std::string_view filetype);

// What the splitter needs to know of one line, computed once per line and cached, so that a
// re-split never looks at the text again.
struct LineClass {
  int8_t role = -1;      // a Role when the line is a role header
  bool heading = false;  // the header is `## Name` / `# Name`, not `NAME:`
  char fence_char = 0;   // '`' or '~' when the line opens a fence
  bool bare = false;     // the fence line has no info string, so it can also close a fence
  int32_t fence_length = 0;
};

LineClass classify_line(std::string_view line, const RoleNames& roles);

// A run of rows: the preamble before the first header (role -1, always segment 0, possibly
// empty) or one message. Segments tile the buffer without gaps.
struct Segment {
  int start = 0;
  int end = 0;
  int role = -1;
  // The fence left open in this segment (it runs to the segment's end), -1 when none.
  int unclosed_row = -1;
  char unclosed_char = 0;
  int unclosed_length = 0;
};

// Where a re-split after an edit may stop: at a header past the edit that also started a
// message before it, since from a header on the split depends only on the lines below.
struct SplitStop {
  int min_row = 0;                                     // the first row after the edited rows
  const std::vector<Segment>* old_segments = nullptr;  // the split before the edit
  int row_shift = 0;                                   // new row - old row below the edit
};

// Splits rows [from, n) into segments. `from` is 0 (a preamble first) or a header row. Only
// headers of `*style` count; when it is Auto, the first header met sets it. With a `stop`, the
// split ends at the first header at or after stop.min_row that was also a header in the
// previous split; *stopped_at is then that row (else n).
std::vector<Segment> split_segments(const std::vector<LineClass>& classes, int from,
                                    HeaderStyle* style, const SplitStop* stop = nullptr,
                                    int* stopped_at = nullptr);

}  // namespace toolhost::parse
