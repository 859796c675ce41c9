#pragma once
// Memory the heap holds free, given back to the system.

namespace toolhost::base {

// Returns the heap's free pages to the system (glibc keeps what a burst of allocations freed,
// and an idle host's RSS would carry it for good); a no-op where the C library cannot. For after
// a one-off burst (start-up reading the history), never on a hot path: it walks the heap.
void release_free_memory();

}  // namespace toolhost::base
