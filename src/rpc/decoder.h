#pragma once
// Streaming msgpack-RPC decoder: bytes in any split, complete messages out.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rpc/message.h"

namespace toolhost::rpc {

// Bounds on what one frame may declare. msgpack-cxx allocates an array's or map's elements
// as soon as it reads the header, so an unchecked header saying "4 G elements" would try to
// allocate ~100 GB before a single element arrived; a str/bin header that large would make
// the buffer grow until the peer stops sending. A header above a limit is an error at once.
// A str/bin is only checked once all of it has arrived, so the size of the message being
// received is capped as well. The defaults leave room for a whole large buffer in one
// nvim_buf_lines_event.
msgpack::unpack_limit default_limits();
constexpr size_t kMaxMessageBytes = size_t{256} << 20;

class Decoder {
 public:
  explicit Decoder(const msgpack::unpack_limit& limits = default_limits(),
                   size_t max_message_bytes = kMaxMessageBytes);

  // Space for the next read of up to `size` bytes; pass the count read to consumed().
  char* reserve(size_t size);
  // Decodes what the last reserve() received. Appends every complete message to `out`;
  // returns an error text for input that is not msgpack-RPC (the stream is then unusable).
  std::optional<std::string> consumed(size_t size, std::vector<Message>& out);
  // Copying convenience for tests and in-memory input.
  std::optional<std::string> feed(std::string_view bytes, std::vector<Message>& out);

 private:
  msgpack::unpacker unpacker_;
  size_t max_message_bytes_;
};

// Turns one decoded msgpack object into a Message, or says why it is not one.
std::optional<std::string> to_message(msgpack::object_handle handle, Message& out);

}  // namespace toolhost::rpc
