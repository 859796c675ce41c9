#pragma once
// The header lines of llm-sidekick's display format (SPEC 10.1): `**bash**` (or the name of
// another shell), ``**Read:** `path` `` and its siblings, several of them side by side on one
// line, and the executed forms (``✓ Executed: `cmd` ``) that a finished block is rewritten to.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parse/types.h"

namespace toolhost::parse {

enum class HeaderKind {
  Shell,
  Execute,
  Write,
  Create,
  Replace,
  Read,
  List,
  Insert,
  Tool,
  Executed
};

struct Header {
  HeaderKind kind;
  std::optional<std::string> span;  // the path, command or tool name in the header's code span
  size_t column = 0;                // where the header starts in the text it was read from
  std::string label;                // an executed header's label ("✓ Called:")
};

// The headers `text` consists of, in order; empty when it is prose. Label headers may stand side
// by side (`**Read:** `a`**Read:** `b``, as llm-sidekick renders several paths); a shell or an
// executed header stands alone. Any other text on the line makes it prose (SPEC 10).
std::vector<Header> parse_headers(std::string_view text, const ToolTable& tools);

// `**Search:**`, `**Content:**`, …: a label line with nothing after the label.
bool is_label(std::string_view line, std::string_view label);

// `**Replacement 3:**` (llm-sidekick's numbered one-fence replacements): the number, else 0.
int replacement_number(std::string_view line);

}  // namespace toolhost::parse
