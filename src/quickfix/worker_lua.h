#pragma once
// The Lua the errorformat worker runs (worker.h): its prelude, and the calls CallList makes.

namespace toolhost::quickfix::worker_lua {

// Defines `toolhost_qf` in the worker: efm_of(compiler), open(title), append(...), reset().
extern const char* const kPrelude;
// (title, compiler or "") -> { id = list id, efm = the compiler's 'errorformat' or nil }
extern const char* const kOpen;
// () -> buffers left: frees every list and the buffers of the files parsed
extern const char* const kReset;
// (id, cwd, efm, lines, from, final) -> { items = {...}, next = n } or { evicted = true }
extern const char* const kAppend;

}  // namespace toolhost::quickfix::worker_lua
