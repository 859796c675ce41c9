#include "rpc/convert.h"

#include <sstream>
#include <utility>
#include <vector>

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

bool nested_deeper_than(const msgpack::object& object, size_t limit) {
  std::vector<std::pair<const msgpack::object*, size_t>> todo = {{&object, 0}};
  while (!todo.empty()) {
    auto [o, depth] = todo.back();
    todo.pop_back();
    if (o->type == msgpack::type::ARRAY) {
      if (depth + 1 > limit) return true;
      for (uint32_t i = 0; i < o->via.array.size; ++i)
        todo.emplace_back(&o->via.array.ptr[i], depth + 1);
    } else if (o->type == msgpack::type::MAP) {
      if (depth + 1 > limit) return true;
      for (uint32_t i = 0; i < o->via.map.size; ++i) {
        todo.emplace_back(&o->via.map.ptr[i].key, depth + 1);
        todo.emplace_back(&o->via.map.ptr[i].val, depth + 1);
      }
    }
  }
  return false;
}

namespace {

nlohmann::json to_json_at(const msgpack::object& o, size_t depth) {
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
      if (depth >= kMaxNesting) return nullptr;
      nlohmann::json array = nlohmann::json::array();
      for (uint32_t i = 0; i < o.via.array.size; ++i)
        array.push_back(to_json_at(o.via.array.ptr[i], depth + 1));
      return array;
    }
    case msgpack::type::MAP: {
      if (depth >= kMaxNesting) return nullptr;
      nlohmann::json map = nlohmann::json::object();
      for (uint32_t i = 0; i < o.via.map.size; ++i) {
        const auto& kv = o.via.map.ptr[i];
        nlohmann::json key = to_json_at(kv.key, depth + 1);
        // A key that is no string is printed; never strictly, since any string in it may hold
        // invalid UTF-8 and a throw here would lose a response on its way to its callback.
        map[key.is_string() ? key.get<std::string>()
                            : key.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)] =
            to_json_at(kv.val, depth + 1);
      }
      return map;
    }
  }
  return nullptr;
}

}  // namespace

nlohmann::json to_json(const msgpack::object& o) {
  return to_json_at(o, 0);
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
