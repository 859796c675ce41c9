#pragma once
// msgpack objects to JSON values, for handlers that prefer one dynamic value type.

#include <optional>
#include <string>

#include <msgpack.hpp>
#include <nlohmann/json.hpp>

namespace toolhost::rpc {

// Neovim's Buffer/Window/Tabpage handles arrive as ext types 0-2 holding a msgpack integer;
// they become that integer. Binary and invalid UTF-8 strings are kept byte for byte; a map key
// that is no string becomes its JSON text (invalid UTF-8 in it replaced). Never throws.
nlohmann::json to_json(const msgpack::object& object);

// An integer handle from an int or a Neovim ext type; nullopt for anything else.
std::optional<int64_t> to_handle(const msgpack::object& object);

// Neovim's error shape [type, "message"], a plain string, or anything else printed; never
// empty, so that a response with an error never reads as a success.
std::string error_text(const msgpack::object& error);

}  // namespace toolhost::rpc
