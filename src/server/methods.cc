#include "server/methods.h"

namespace toolhost::server {

void MethodTable::add(std::string name, Handler handler) {
  handlers_[std::move(name)] = std::move(handler);
}

MethodTable::Reply MethodTable::call(std::string_view name, const nlohmann::json& args) const {
  auto it = handlers_.find(name);
  if (it == handlers_.end()) return core::error("unknown method " + std::string(name));
  // A handler that throws (a JSON dump of invalid UTF-8, say) still gets its caller an answer:
  // through toolhost.call nobody else would give one (found by rpc_from_lua).
  try {
    return it->second(args.is_null() ? nlohmann::json::object() : args);
  } catch (const std::exception& e) {
    return core::error(std::string(name) + " failed: " + e.what());
  }
}

std::vector<std::string> MethodTable::names() const {
  std::vector<std::string> names;
  for (const auto& [name, handler] : handlers_) names.push_back(name);
  return names;
}

}  // namespace toolhost::server
