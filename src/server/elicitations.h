#pragma once
// The questions MCP servers ask the user in the middle of a call (`elicitation/create`, issue
// #27), put to Neovim one at a time: the host sends lua/toolhost/mcp_elicit.lua a question
// {id, server, message, fields} and goes on; Lua asks (vim.ui.input, vim.ui.select) or, with
// no UI, answers "defaults" at once, and notifies `toolhost.mcp_elicited` {id, action,
// content?}. The answer reaches the server once it fits the form. A question nobody waits for
// any more (its call ended, its server went away) is dropped: a late answer is ignored.

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "core/result.h"
#include "mcp/elicitation.h"

namespace toolhost::server {

class Elicitations {
 public:
  // Puts `question` to the user; `failed` if it could not (Neovim refused it): then it counts
  // as canceled. The host's is an nvim_exec_lua that returns at once.
  using Send = std::function<void(const nlohmann::json& question, std::function<void()> failed)>;
  using Answer = std::function<void(mcp::ElicitationAnswer)>;

  explicit Elicitations(Send send);
  ~Elicitations();
  Elicitations(const Elicitations&) = delete;
  Elicitations& operator=(const Elicitations&) = delete;

  // Queues the question of `server`; asked at once when no other is being asked.
  void ask(const std::string& server, mcp::ElicitationRequest request, Answer answer);
  // Lua's answer {id, action ("accept" with content, "decline", "cancel", or "defaults": the
  // schema's defaults, as `toolhost mcp call` answers)}. An error for a malformed answer, or
  // for content that does not fit the form (the server is told "cancel" then); an answer to a
  // question no longer asked is ignored.
  core::Result<bool> answered(const nlohmann::json& args);

  // Questions waiting, the one being asked included.
  size_t pending() const { return queue_.size(); }

  // The question as Lua gets it: fields in the server's order, each a property of the form with its
  // `name` and `required`.
  static nlohmann::json question_json(uint64_t id, const std::string& server,
                                      const mcp::ElicitationRequest& request);

 private:
  struct Question {
    uint64_t id = 0;
    std::string server;
    mcp::ElicitationRequest request;
    Answer answer;
  };

  // Asks the first question still wanted; those nobody waits for are answered "cancel" (a
  // server that still listens learns it) and dropped.
  void ask_next();
  // Ends the question being asked with `answer` and asks the next.
  void finish(mcp::ElicitationAnswer answer);

  Send send_;
  std::deque<Question> queue_;  // the front one is being asked when asking_
  bool asking_ = false;
  uint64_t next_id_ = 1;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace toolhost::server
