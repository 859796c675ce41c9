#pragma once
// One agent connection's calls, run through Neovim (SPEC 13.5): each becomes a block in the
// agent's buffer; once the session has parsed it there, it runs or waits for approval like any
// chat block, and its streamed lines and its result come back through the AgentHub.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "agents/call_message.h"
#include "jobs/types.h"
#include "mcp/server.h"

namespace toolhost::server {

class AgentHub;

class AgentBackend : public mcp::ToolBackend {
 public:
  explicit AgentBackend(AgentHub& hub);
  ~AgentBackend() override;

  std::vector<mcp::Tool> tools() override;
  void start(Call call, Sink sink) override;
  void cancel(uint64_t id, const std::string& reason) override;

  // From the hub: the bound call's lines as its block streams them, and its end.
  void output(uint64_t id, const std::vector<std::string>& lines);
  void ended(uint64_t id, const jobs::JobInfo& job, const std::vector<std::string>& body);
  // The call will never run (its buffer is gone): an error result saying `why`.
  void abandon(uint64_t id, const std::string& why) { fail(id, why); }
  // Its block got another id than the one its job started ahead under (Session::call_renamed).
  void renamed(uint64_t id, const std::string& call_id);

 private:
  struct Pending {
    Sink sink;
    std::string tool;
    int64_t buf = 0;
    std::string call_id;  // once the session has parsed the block
    bool cancelled = false;
    std::string cancel_reason;
  };

  // An auto-acceptable call of an agent whose buffer is watched starts before its block is
  // written (P9): its buffer and call id, or none when it must wait for its block.
  std::optional<std::pair<int64_t, std::string>> start_ahead(uint64_t id, const std::string& client,
                                                             const agents::CallMessage& message);
  // Lua wrote the message: find its call in the session and start it.
  void appended(uint64_t id, const std::string& error, int64_t buf, int block_row);
  void bind(uint64_t id, int64_t buf, int block_row);
  void fail(uint64_t id, const std::string& message);

  AgentHub& hub_;
  std::map<uint64_t, Pending> calls_;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace toolhost::server
