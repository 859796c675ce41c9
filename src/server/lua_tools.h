#pragma once
// The editor side of the tools (tools::Editor): asks lua/toolhost/tools.lua to run an
// operation and waits, without blocking, for its `toolhost.done` notification. Neovim answers
// later (a Lua tool calls `done` when it is ready), so the request itself returns at once.

#include <cstdint>
#include <map>
#include <string>

#include "nvim/api.h"
#include "tools/editor.h"

namespace toolhost::server {

class LuaTools : public tools::Editor {
 public:
  explicit LuaTools(nvim::Api& api) : api_(api) {}

  void call(const std::string& op, nlohmann::json args, Reply reply) override;
  // A `toolhost.done` {token, result} or {token, error} from Lua.
  void resolve(const nlohmann::json& answer);

 private:
  void fail(uint64_t token, const std::string& why);

  nvim::Api& api_;
  uint64_t next_token_ = 0;
  std::map<uint64_t, Reply> pending_;
};

}  // namespace toolhost::server
