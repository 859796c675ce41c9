#include "rpc/convert.h"

#include <sstream>

namespace toolhost::rpc {

std::optional<int64_t> to_handle(const msgpack::object& o) {
  switch (o.type) {
    case msgpack::type::POSITIVE_INTEGER: return static_cast<int64_t>(o.via.u64);
    case msgpack::type::NEGATIVE_INTEGER: return o.via.i64;
    case msgpack::type::EXT: {
      // The payload is the handle, itself msgpack-encoded: an integer, so nothing that
      // allocates may pass. Unpacked without limits, an 8-byte payload declaring an array of
      // 4 G elements would allocate ~100 GB first (what the decoder's limits prevent).
      static const msgpack::unpack_limit kIntegerOnly(0, 0, 0, 0, 0, 0);
      try {
        msgpack::object_handle inner =
            msgpack::unpack(o.via.ext.data(), o.via.ext.size, nullptr, nullptr, kIntegerOnly);
        return to_handle(inner.get());
      } catch (const std::exception&) {
        return std::nullopt;
      }
    }
    default: return std::nullopt;
  }
}

nlohmann::json to_json(const msgpack::object& o) {
  switch (o.type) {
    case msgpack::type::NIL: return nullptr;
    case msgpack::type::BOOLEAN: return o.via.boolean;
    case msgpack::type::POSITIVE_INTEGER: return o.via.u64;
    case msgpack::type::NEGATIVE_INTEGER: return o.via.i64;
    case msgpack::type::FLOAT32:
    case msgpack::type::FLOAT64: return o.via.f64;
    case msgpack::type::STR: return std::string(o.via.str.ptr, o.via.str.size);
    case msgpack::type::BIN: return std::string(o.via.bin.ptr, o.via.bin.size);
    case msgpack::type::EXT: {
      auto handle = to_handle(o);
      return handle ? nlohmann::json(*handle) : nlohmann::json(nullptr);
    }
    case msgpack::type::ARRAY: {
      nlohmann::json array = nlohmann::json::array();
      for (uint32_t i = 0; i < o.via.array.size; ++i) array.push_back(to_json(o.via.array.ptr[i]));
      return array;
    }
    case msgpack::type::MAP: {
      nlohmann::json map = nlohmann::json::object();
      for (uint32_t i = 0; i < o.via.map.size; ++i) {
        const auto& kv = o.via.map.ptr[i];
        nlohmann::json key = to_json(kv.key);
        // A key that is no string is printed; never strictly, since any string in it may hold
        // invalid UTF-8 and a throw here would lose a response on its way to its callback.
        map[key.is_string() ? key.get<std::string>()
                            : key.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)] =
            to_json(kv.val);
      }
      return map;
    }
  }
  return nullptr;
}

std::string error_text(const msgpack::object& error) {
  nlohmann::json value = to_json(error);
  std::string text;
  if (value.is_array() && value.size() >= 2 && value[1].is_string()) {
    text = value[1];
  } else if (value.is_string()) {
    text = value;
  }
  // An empty text would read as success (Response::ok()): the whole value, printed, instead.
  if (text.empty()) text = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return text;
}

}  // namespace toolhost::rpc
