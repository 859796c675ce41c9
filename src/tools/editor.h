#pragma once
// What Neovim does for the tools when a chat buffer runs them (SPEC 7): Lua tools (`fn`,
// edit_buffer) and edits of files loaded in a buffer. The CLI has no editor: there file tools
// write the disk, and a Lua tool is refused.

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "core/result.h"

namespace toolhost::tools {

class Editor {
 public:
  using Reply = std::function<void(core::Result<nlohmann::json>)>;

  virtual ~Editor() = default;
  // Runs `op` of lua/toolhost/tools.lua with `args` in Neovim; `reply` comes later, on the
  // loop, exactly once (an error when Neovim cannot answer).
  virtual void call(const std::string& op, nlohmann::json args, Reply reply) = 0;
};

}  // namespace toolhost::tools
