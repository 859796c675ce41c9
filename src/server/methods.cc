#include "server/methods.h"

namespace toolhost::server {

void MethodTable::add(std::string name, Handler handler) {
  handlers_[std::move(name)] = std::move(handler);
}

MethodTable::Reply MethodTable::call(std::string_view name, const nlohmann::json& args) const {
  auto it = handlers_.find(name);
  if (it == handlers_.end()) return core::error("unknown method " + std::string(name));
  return it->second(args.is_null() ? nlohmann::json::object() : args);
}

std::vector<std::string> MethodTable::names() const {
  std::vector<std::string> names;
  for (const auto& [name, handler] : handlers_) names.push_back(name);
  return names;
}

}  // namespace toolhost::server
