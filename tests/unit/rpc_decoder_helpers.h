#pragma once
// Helpers of the decoder tests: hand-made msgpack frames, three ordinary messages and the
// check that they came through, one-shot decoding.

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "rpc/convert.h"
#include "rpc/decoder.h"
#include "rpc/encoder.h"

namespace toolhost::rpc::decoding {

using nlohmann::json;

// Raw msgpack for hand-made (often malformed) frames.
class Raw {
 public:
  Raw() : packer_(buffer_) {}
  Raw& array(uint32_t n) { return packer_.pack_array(n), *this; }
  Raw& map(uint32_t n) { return packer_.pack_map(n), *this; }
  Raw& u(uint64_t v) { return packer_.pack(v), *this; }
  Raw& i(int64_t v) { return packer_.pack(v), *this; }
  Raw& str(const std::string& s) { return packer_.pack(s), *this; }
  Raw& nil() { return packer_.pack_nil(), *this; }
  Raw& bytes(const std::string& b) { return buffer_.write(b.data(), b.size()), *this; }
  std::string take() const { return std::string(buffer_.data(), buffer_.size()); }

 private:
  msgpack::sbuffer buffer_;
  msgpack::packer<msgpack::sbuffer> packer_;
};

inline std::string three_messages() {
  return encode_request(7, "nvim_buf_get_lines", json::array({1, 0, -1, true})) +
         encode_response(7, nullptr, json::array({"a", "b"})) +
         encode_notification("nvim_buf_lines_event", json::array({"x", json::object()}));
}

inline void expect_three(const std::vector<Message>& out) {
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].type, MessageType::Request);
  EXPECT_EQ(out[0].id, 7u);
  EXPECT_EQ(out[0].method, "nvim_buf_get_lines");
  EXPECT_EQ(to_json(out[0].params), json::array({1, 0, -1, true}));
  EXPECT_EQ(out[1].type, MessageType::Response);
  EXPECT_EQ(out[1].id, 7u);
  EXPECT_EQ(out[1].error.type, msgpack::type::NIL);
  EXPECT_EQ(to_json(out[1].result), json::array({"a", "b"}));
  EXPECT_EQ(out[2].type, MessageType::Notification);
  EXPECT_EQ(out[2].method, "nvim_buf_lines_event");
  EXPECT_EQ(to_json(out[2].params), json::array({"x", json::object()}));
}

inline std::optional<std::string> decode(const std::string& bytes, std::vector<Message>& out) {
  Decoder decoder;
  return decoder.feed(bytes, out);
}

}  // namespace toolhost::rpc::decoding
