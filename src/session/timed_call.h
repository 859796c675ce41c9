#pragma once
// An editor call with a deadline: a custom tool's `auto_accept` Lua function must answer
// within 1 s (SPEC 7), or it counts as "no".

#include <uv.h>

#include <string>

#include "tools/editor.h"

namespace toolhost::session {

// Calls `op` and answers `reply` with the editor's answer, or with an error once `timeout_ms`
// passed, whichever comes first; the other is dropped. `reply` runs exactly once, on the loop.
void timed_call(uv_loop_t* loop, tools::Editor& editor, const std::string& op, nlohmann::json args,
                uint64_t timeout_ms, tools::Editor::Reply reply);

}  // namespace toolhost::session
