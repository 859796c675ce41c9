#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace toolhost::parse {

// 64-bit FNV-1a.
uint64_t fnv1a64(std::string_view bytes, uint64_t seed = 0xcbf29ce484222325ULL);

// SPEC 3: FNV-1a over `tool \0 params \0 k`, printed as the low 48 bits in 12 hex digits.
// `params` is canonical JSON without purpose/explanation; `k` counts earlier identical calls.
std::string call_id(std::string_view tool, const nlohmann::json& params, int k);

// The same in two steps: the hash of `tool \0 params \0` identifies identical calls (the parser
// counts `k` with it), and the id continues that hash with `k`.
uint64_t call_content_hash(std::string_view tool, const nlohmann::json& params);
std::string call_id_from_hash(uint64_t content_hash, int k);

}  // namespace toolhost::parse
