#pragma once
// Streaming msgpack-RPC decoder: bytes in any split, complete messages out.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rpc/message.h"

namespace toolhost::rpc {

class Decoder {
 public:
  // Space for the next read of up to `size` bytes; pass the count read to consumed().
  char* reserve(size_t size);
  // Decodes what the last reserve() received. Appends every complete message to `out`;
  // returns an error text for input that is not msgpack-RPC (the stream is then unusable).
  std::optional<std::string> consumed(size_t size, std::vector<Message>& out);
  // Copying convenience for tests and in-memory input.
  std::optional<std::string> feed(std::string_view bytes, std::vector<Message>& out);

 private:
  msgpack::unpacker unpacker_;
};

// Turns one decoded msgpack object into a Message, or says why it is not one.
std::optional<std::string> to_message(msgpack::object_handle handle, Message& out);

}  // namespace toolhost::rpc
