#include "server/elicitations.h"

#include <algorithm>
#include <utility>

#include "base/log.h"
#include "server/args.h"

namespace toolhost::server {
namespace {

using Action = mcp::ElicitationAnswer::Action;

mcp::ElicitationAnswer with_action(Action action) {
  mcp::ElicitationAnswer answer;
  answer.action = action;
  return answer;
}

}  // namespace

Elicitations::Elicitations(Send send) : send_(std::move(send)) {}

Elicitations::~Elicitations() {
  *alive_ = false;
}

nlohmann::json Elicitations::question_json(uint64_t id, const std::string& server,
                                           const mcp::ElicitationRequest& request) {
  const nlohmann::json& schema = request.requested_schema;
  nlohmann::json required = schema.value("required", nlohmann::json::array());
  if (!required.is_array()) required = nlohmann::json::array();
  nlohmann::json fields = nlohmann::json::array();
  const nlohmann::json properties = schema.value("properties", nlohmann::json::object());
  for (const std::string& name : mcp::field_names(request)) {
    const nlohmann::json& property = properties[name];
    nlohmann::json field = property.is_object() ? property : nlohmann::json::object();
    field["name"] = name;
    field["required"] = std::find(required.begin(), required.end(), name) != required.end();
    fields.push_back(std::move(field));
  }
  return {{"id", id}, {"server", server}, {"message", request.message}, {"fields", fields}};
}

void Elicitations::ask(const std::string& server, mcp::ElicitationRequest request, Answer answer) {
  queue_.push_back(Question{next_id_++, server, std::move(request), std::move(answer)});
  if (!asking_) ask_next();
}

void Elicitations::ask_next() {
  while (!queue_.empty() && !queue_.front().request.wanted()) {
    Question gone = std::move(queue_.front());
    queue_.pop_front();
    log::info("mcp: " + gone.server + "'s question is no longer wanted: dropped");
    gone.answer(with_action(Action::kCancel));
  }
  if (queue_.empty()) return;
  asking_ = true;
  const Question& next = queue_.front();
  std::weak_ptr<bool> alive = alive_;
  const uint64_t id = next.id;
  // Its call may end while the user is asked (a timeout, a cancel, the server gone): it ends
  // then, as canceled, and the next is asked; Lua's answer, when it comes, is ignored.
  if (next.request.on_dropped) {
    next.request.on_dropped([this, alive, id] {
      if (alive.expired() || !asking_ || queue_.front().id != id) return;
      log::info("mcp: question " + std::to_string(id) + " is no longer wanted: canceled");
      finish(with_action(Action::kCancel));
    });
  }
  send_(question_json(id, next.server, next.request), [this, alive, id] {
    if (alive.expired() || !asking_ || queue_.front().id != id) return;
    log::warn("mcp: Neovim could not ask question " + std::to_string(id) + ": canceled");
    finish(with_action(Action::kCancel));
  });
}

void Elicitations::finish(mcp::ElicitationAnswer answer) {
  Question done = std::move(queue_.front());
  queue_.pop_front();
  asking_ = false;
  // A question whose call ended meanwhile gets "cancel", whatever the user said.
  done.answer(done.request.wanted() ? std::move(answer) : with_action(Action::kCancel));
  ask_next();
}

core::Result<bool> Elicitations::answered(const nlohmann::json& raw) {
  Args args(raw);
  if (!args.has("id")) return core::error("`id` is required");
  const uint64_t id = args.count_or("id", 0);
  const std::string action = args.string("action");
  if (!args.ok()) return core::error(args.error());
  if (!asking_ || queue_.front().id != id) return true;  // dropped, or a host's before
  const Question& question = queue_.front();
  if (action == "defaults") {
    finish(mcp::answer_with_defaults(question.request));
    return true;
  }
  if (action == "decline" || action == "cancel") {
    finish(with_action(action == "decline" ? Action::kDecline : Action::kCancel));
    return true;
  }
  if (action != "accept") {
    finish(with_action(Action::kCancel));
    return core::error("unknown action \"" + action + "\" (accept, decline, cancel, defaults)");
  }
  nlohmann::json content = raw.value("content", nlohmann::json::object());
  if (content.is_array() && content.empty()) content = nlohmann::json::object();  // Lua's {}
  if (auto error = mcp::check_elicitation_content(question.request, content)) {
    const std::string server = question.server;
    finish(with_action(Action::kCancel));
    return core::error("mcp: " + server + ": the answer does not fit its form (" + *error +
                       "): it was told \"cancel\"");
  }
  mcp::ElicitationAnswer accepted = with_action(Action::kAccept);
  accepted.content = std::move(content);
  finish(std::move(accepted));
  return true;
}

}  // namespace toolhost::server
