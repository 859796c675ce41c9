#pragma once
// msgpack objects to JSON values, for handlers that prefer one dynamic value type.

#include <msgpack.hpp>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace toolhost::rpc {

// How deep the values of a message may nest for a handler: the Peer answers a deeper request
// with an error, and to_json stops there (Neovim's Lua sends tables ~4000 deep).
constexpr size_t kMaxNesting = 64;

// Neovim's Buffer/Window/Tabpage handles arrive as ext types 0-2 holding a msgpack integer;
// they become that integer. Binary and invalid UTF-8 strings are kept byte for byte; a map key
// that is no string becomes its JSON text (invalid UTF-8 in it replaced); a list or map nested
// deeper than kMaxNesting becomes null, so the recursion is bounded. Never throws.
nlohmann::json to_json(const msgpack::object& object);

// Whether `object` holds containers nested more than `limit` deep (a scalar is 0 deep, a
// list of scalars 1). Iterative: any depth the decoder let through is safe to ask about.
bool nested_deeper_than(const msgpack::object& object, size_t limit);

// An integer handle from an int or a Neovim ext type; nullopt for anything else.
std::optional<int64_t> to_handle(const msgpack::object& object);

// Neovim's error shape [type, "message"], a plain string, or anything else printed; never
// empty, so that a response with an error never reads as a success.
std::string error_text(const msgpack::object& error);

}  // namespace toolhost::rpc
