#include "server/lua_tools.h"

#include "base/log.h"

namespace toolhost::server {
namespace {

constexpr const char* kStart = "require('toolhost.tools').start(...)";

}  // namespace

void LuaTools::call(const std::string& op, nlohmann::json args, Reply reply) {
  const uint64_t token = ++next_token_;
  pending_.emplace(token, std::move(reply));
  api_.exec_lua(kStart, nlohmann::json::array({token, op, std::move(args)}),
                [this, token, op](const std::string& error, const nlohmann::json&) {
                  if (!error.empty()) fail(token, "Neovim could not run " + op + ": " + error);
                });
}

void LuaTools::resolve(const nlohmann::json& answer) {
  if (!answer.is_object() || !answer.contains("token") || !answer["token"].is_number_unsigned()) {
    return log::warn("toolhost.done without a token: " + answer.dump());
  }
  auto it = pending_.find(answer["token"].get<uint64_t>());
  if (it == pending_.end()) return;  // answered already (its request failed)
  Reply reply = std::move(it->second);
  pending_.erase(it);
  auto error = answer.find("error");
  if (error != answer.end() && !error->is_null()) {
    return reply(core::error(error->is_string() ? error->get<std::string>() : error->dump()));
  }
  reply(answer.value("result", nlohmann::json::object()));
}

void LuaTools::fail(uint64_t token, const std::string& why) {
  auto it = pending_.find(token);
  if (it == pending_.end()) return;
  Reply reply = std::move(it->second);
  pending_.erase(it);
  reply(core::error(why));
}

}  // namespace toolhost::server
