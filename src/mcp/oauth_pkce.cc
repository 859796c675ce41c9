#include "mcp/oauth_pkce.h"

#include <random>

#include "mcp/oauth_text.h"
#include "mcp/sha256.h"

namespace toolhost::mcp {

std::string random_urlsafe(size_t bytes) {
  std::random_device device;  // the kernel's generator (getrandom) on Linux and macOS
  std::string raw;
  while (raw.size() < bytes) {
    unsigned value = device();
    for (int i = 0; i < 4 && raw.size() < bytes; ++i) raw.push_back(static_cast<char>(value >> (8 * i)));
  }
  return base64url_encode(raw);
}

std::string pkce_s256_challenge(const std::string& verifier) {
  std::string hex = sha256_hex(verifier);
  std::string digest;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    digest.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  }
  return base64url_encode(digest);
}

}  // namespace toolhost::mcp
