#pragma once
// Chat roles and the header names that introduce them (SPEC 3, option `roles`).

#include <string>
#include <string_view>
#include <vector>

namespace toolhost::core {

enum class Role { User, Assistant, System };

std::string_view to_string(Role);

struct RoleNames {
  std::vector<std::string> user{"Me", "User", "USER"};
  std::vector<std::string> assistant{"CodeCompanion", "Assistant", "ASSISTANT", "LLM"};
  std::vector<std::string> system{"System", "SYSTEM"};
};

}  // namespace toolhost::core
