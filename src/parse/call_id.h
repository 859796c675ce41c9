#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "core/hash.h"

namespace toolhost::parse {

using core::fnv1a64;

// SPEC 3: FNV-1a over `tool \0 params \0 k`, printed as the low 48 bits in 12 hex digits.
// `params` is canonical JSON without purpose/explanation; `k` counts earlier identical calls.
std::string call_id(std::string_view tool, const nlohmann::json& params, int k);

// The same in two steps: the hash of `tool \0 params \0` identifies identical calls (the parser
// counts `k` with it), and the id continues that hash with `k`.
uint64_t call_content_hash(std::string_view tool, const nlohmann::json& params);
std::string call_id_from_hash(uint64_t content_hash, int k);

}  // namespace toolhost::parse
