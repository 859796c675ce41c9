#pragma once
// PKCE (RFC 7636, S256 only) and the sign-in's other unguessable values (`state`).

#include <string>

namespace toolhost::mcp {

// `bytes` random bytes from the system's generator, base64url: a verifier or a state.
std::string random_urlsafe(size_t bytes);
// BASE64URL(SHA-256(verifier)).
std::string pkce_s256_challenge(const std::string& verifier);

}  // namespace toolhost::mcp
