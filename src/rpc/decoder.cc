#include "rpc/decoder.h"

#include <cstring>

namespace toolhost::rpc {

msgpack::unpack_limit default_limits() {
  constexpr size_t kArray = size_t{1} << 22;    // elements (4 M: ~100 MB of msgpack::object)
  constexpr size_t kMap = size_t{1} << 20;      // pairs
  constexpr size_t kBytes = size_t{256} << 20;  // one str/bin
  constexpr size_t kExt = size_t{1} << 20;
  // Nesting costs the unpacker a small stack entry per level, no recursion. Neovim's Lua sends
  // tables up to ~4000 deep; the Peer refuses what is deeper than handlers convert
  // (kMaxNesting) message by message, so only deeper input than this ends the stream.
  constexpr size_t kDepth = 5000;
  return msgpack::unpack_limit(kArray, kMap, kBytes, kBytes, kExt, kDepth);
}

namespace {
// Strings and binaries point into the unpacker's buffer (kept alive by the message's zone)
// instead of being copied: what the default reference function does.
bool reference_buffer(msgpack::type::object_type, size_t, void*) {
  return true;
}
}  // namespace

Decoder::Decoder(const msgpack::unpack_limit& limits, size_t max_message_bytes)
    : unpacker_(&reference_buffer, nullptr, MSGPACK_UNPACKER_INIT_BUFFER_SIZE, limits),
      max_message_bytes_(max_message_bytes) {}

char* Decoder::reserve(size_t size) {
  unpacker_.reserve_buffer(size);
  return unpacker_.buffer();
}

std::optional<std::string> Decoder::consumed(size_t size, std::vector<Message>& out) {
  unpacker_.buffer_consumed(size);
  try {
    msgpack::object_handle handle;
    while (unpacker_.next(handle)) {
      Message message;
      if (auto error = to_message(std::move(handle), message)) return error;
      out.push_back(std::move(message));
    }
  } catch (const std::exception& e) {
    return std::string("malformed msgpack: ") + e.what();
  }
  // What has arrived of the message still incomplete.
  if (unpacker_.message_size() > max_message_bytes_) {
    return "message too large: over " + std::to_string(max_message_bytes_) + " bytes";
  }
  return std::nullopt;
}

std::optional<std::string> Decoder::feed(std::string_view bytes, std::vector<Message>& out) {
  std::memcpy(reserve(bytes.size()), bytes.data(), bytes.size());
  return consumed(bytes.size(), out);
}

std::optional<std::string> to_message(msgpack::object_handle handle, Message& out) {
  const msgpack::object& root = handle.get();
  if (root.type != msgpack::type::ARRAY || root.via.array.size < 3) {
    return "malformed message: not an RPC array";
  }
  const msgpack::object* items = root.via.array.ptr;
  const uint32_t count = root.via.array.size;
  if (items[0].type != msgpack::type::POSITIVE_INTEGER) return "malformed message: bad type";
  const uint64_t kind = items[0].via.u64;
  auto read_id = [&](const msgpack::object& o) {
    return o.type == msgpack::type::POSITIVE_INTEGER && o.via.u64 <= UINT32_MAX;
  };
  auto read_method = [&](const msgpack::object& o) {
    if (o.type != msgpack::type::STR && o.type != msgpack::type::BIN) return false;
    out.method.assign(o.via.str.ptr, o.via.str.size);
    return true;
  };
  auto is_array = [](const msgpack::object& o) { return o.type == msgpack::type::ARRAY; };
  if (kind == 0 && count == 4) {
    if (!read_id(items[1]) || !read_method(items[2]) || !is_array(items[3])) {
      return "malformed request";
    }
    out.type = MessageType::Request;
    out.id = static_cast<uint32_t>(items[1].via.u64);
    out.params = items[3];
  } else if (kind == 1 && count == 4) {
    if (!read_id(items[1])) return "malformed response";
    out.type = MessageType::Response;
    out.id = static_cast<uint32_t>(items[1].via.u64);
    out.error = items[2];
    out.result = items[3];
  } else if (kind == 2 && count == 3) {
    if (!read_method(items[1]) || !is_array(items[2])) return "malformed notification";
    out.type = MessageType::Notification;
    out.params = items[2];
  } else {
    return "malformed message: unknown type or size";
  }
  out.handle = std::move(handle);
  return std::nullopt;
}

}  // namespace toolhost::rpc
