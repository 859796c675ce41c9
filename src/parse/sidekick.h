#pragma once
// llm-sidekick's display format (SPEC 10.1): `**bash**` + fence, ``**Write:** `path` `` + fence,
// ``**Replace:** `path` `` + search/replace pairs, ``**Read:** `path` ``, … and the executed
// forms (``✓ Executed: `cmd` ``, ``✗ Failed: `path` ``) that a result block follows.

#include <optional>

#include "parse/reader.h"

namespace toolhost::parse {

// Reads the block whose header is at `row`; nullopt when the line is no sidekick header or the
// header lacks the fence it needs (then it is prose).
std::optional<Found> read_sidekick_block(const ReadContext& ctx, int row);

}  // namespace toolhost::parse
