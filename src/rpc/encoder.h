#pragma once
// Packs outgoing msgpack-RPC messages. Parameters and results are JSON values; nlohmann
// writes them as msgpack, so one dynamic value type serves every layer above.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace toolhost::rpc {

std::string encode_request(uint32_t id, std::string_view method, const nlohmann::json& params);
std::string encode_notification(std::string_view method, const nlohmann::json& params);
// `error` is null for success.
std::string encode_response(uint32_t id, const nlohmann::json& error, const nlohmann::json& result);

}  // namespace toolhost::rpc
