#pragma once
// SHA-256 (FIPS 180-4), for what must not collide on purpose: a project file's accepted MCP
// servers (an edited file must never pass for the one the user accepted). Pure.

#include <string>
#include <string_view>

namespace toolhost::mcp {

// The digest of `bytes` as 64 lowercase hex digits.
std::string sha256_hex(std::string_view bytes);

}  // namespace toolhost::mcp
