#pragma once
// llm-sidekick's display format (SPEC 10.1): `**bash**` + fence, ``**Write:** `path` `` + fence,
// ``**Replace:** `path` `` + search/replace pairs, ``**Read:** `path` ``, … and the executed
// forms (``✓ Executed: `cmd` ``, ``✗ Failed: `path` ``) that a result block follows.

#include <optional>

#include "parse/reader.h"

namespace toolhost::parse {

// Reads the block whose header is at `row`, from byte `column` of the line on (past `ASSISTANT: `
// when the reply starts on the role line); nullopt when that text is no sidekick header or the
// header lacks the fence it needs (then it is prose).
std::optional<Found> read_sidekick_block(const ReadContext& ctx, int row, int column = 0);

}  // namespace toolhost::parse
