#pragma once
// Waiting on Lua's feedback queue (lua/toolhost/slices.lua) from an e2e test.

#include <chrono>
#include <stdexcept>
#include <string>

#include "e2e/nvim_harness.h"

namespace toolhost::e2e {

// Asks until no list is queued, applied or waiting for its diagnostics refresh; each answer
// lets Neovim's loop run a slice. Throws after `deadline` (a refresh that never ends).
inline void wait_until_applied(NvimHarness& nvim,
                               std::chrono::milliseconds deadline = std::chrono::seconds(20)) {
  auto until = std::chrono::steady_clock::now() + deadline;
  while (nvim.lua("return require('toolhost.slices').busy()").get<bool>()) {
    if (std::chrono::steady_clock::now() > until) {
      throw std::runtime_error("toolhost.slices still busy after " +
                               std::to_string(deadline.count()) + " ms");
    }
  }
}

}  // namespace toolhost::e2e
