#pragma once
// The host's RPC method table (SPEC 8): one named handler per method. The same handler
// answers an RPC request, a notification, and a `toolhost.call` from Lua's asynchronous
// bridge, so every method is served once.

#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace toolhost::server {

class MethodTable {
 public:
  using Reply = core::Result<nlohmann::json>;
  // Gets the method's one argument table ({} when none was sent).
  using Handler = std::function<Reply(const nlohmann::json& args)>;

  void add(std::string name, Handler handler);
  // An unknown method is an error reply, like a bad argument.
  Reply call(std::string_view name, const nlohmann::json& args) const;
  std::vector<std::string> names() const;

 private:
  std::map<std::string, Handler, std::less<>> handlers_;
};

}  // namespace toolhost::server
