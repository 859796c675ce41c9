#pragma once
// 64-bit FNV-1a: the one content hash of the project (call ids, MCP tool names and
// fingerprints, the key of a server's cached tools). Stable across builds and machines, since
// ids and cache keys are written to disk; not for anything an attacker may choose to collide.

#include <cstdint>
#include <string_view>

namespace toolhost::core {

constexpr uint64_t kFnv1a64Seed = 0xcbf29ce484222325ULL;

// `seed` continues an earlier hash (the hash of a concatenation).
uint64_t fnv1a64(std::string_view bytes, uint64_t seed = kFnv1a64Seed);

}  // namespace toolhost::core
