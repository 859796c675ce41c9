#include "core/tool_call.h"

#include "core/roles.h"

namespace toolhost::core {

std::string_view to_string(Role role) {
  switch (role) {
    case Role::User: return "user";
    case Role::Assistant: return "assistant";
    case Role::System: return "system";
  }
  return "user";
}

std::string_view to_string(Dialect dialect) {
  switch (dialect) {
    case Dialect::Sidekick: return "sidekick";
    case Dialect::CodeCompanion: return "codecompanion";
    case Dialect::Json: return "json";
  }
  return "sidekick";
}

}  // namespace toolhost::core
