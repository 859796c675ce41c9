// Encoder output: exact bytes for small frames, round trips through the decoder, and the
// msgpack -> JSON conversion handlers rely on.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "rpc/convert.h"
#include "rpc/decoder.h"
#include "rpc/encoder.h"

namespace toolhost::rpc {
namespace {

using nlohmann::json;

Message decode_one(const std::string& bytes) {
  Decoder decoder;
  std::vector<Message> out;
  auto error = decoder.feed(bytes, out);
  EXPECT_EQ(error, std::nullopt);
  EXPECT_EQ(out.size(), 1u);
  return out.empty() ? Message{} : std::move(out[0]);
}

TEST(RpcEncoder, RequestBytesAreTheMsgpackRpcArray) {
  EXPECT_EQ(encode_request(1, "a", json::array()), std::string("\x94\x00\x01\xa1\x61\x90", 6));
  // A null params value is sent as an empty array, as msgpack-RPC requires.
  EXPECT_EQ(encode_request(1, "a", nullptr), std::string("\x94\x00\x01\xa1\x61\x90", 6));
}

TEST(RpcEncoder, NotificationAndResponseBytes) {
  EXPECT_EQ(encode_notification("ev", json::array({true})), std::string("\x93\x02\xa2"
                                                                        "ev"
                                                                        "\x91\xc3",
                                                                        7));
  EXPECT_EQ(encode_response(5, nullptr, 42), std::string("\x94\x01\x05\xc0\x2a", 5));
  EXPECT_EQ(encode_response(5, json::array({0, "no"}), nullptr),
            std::string("\x94\x01\x05\x92\x00\xa2"
                        "no"
                        "\xc0",
                        9));
}

TEST(RpcEncoder, LargeIdsUseFullWidth) {
  Message m = decode_one(encode_request(UINT32_MAX, "m", json::array()));
  EXPECT_EQ(m.id, UINT32_MAX);
}

TEST(RpcEncoder, RequestRoundTripsThroughTheDecoder) {
  json params = json::array({
      1,
      -1,
      int64_t{-9000000000},
      uint64_t{18000000000000000000ULL},
      1.5,
      true,
      false,
      nullptr,
      "ünïcødé ✓",
      std::string("nul\0byte", 8),
      json::array({json::array(), json::object()}),
      json{{"b", 1}, {"a", json{{"nested", json::array({"x"})}}}},
  });
  Message m = decode_one(encode_request(99, "nvim_exec_lua", params));
  EXPECT_EQ(m.type, MessageType::Request);
  EXPECT_EQ(m.id, 99u);
  EXPECT_EQ(m.method, "nvim_exec_lua");
  EXPECT_EQ(to_json(m.params), params);
}

TEST(RpcEncoder, ResponseRoundTripsErrorAndResult) {
  Message ok = decode_one(encode_response(3, nullptr, json{{"k", "v"}}));
  EXPECT_EQ(ok.type, MessageType::Response);
  EXPECT_EQ(ok.id, 3u);
  EXPECT_EQ(ok.error.type, msgpack::type::NIL);
  EXPECT_EQ(to_json(ok.result), (json{{"k", "v"}}));

  Message failed = decode_one(encode_response(4, json::array({1, "bad"}), nullptr));
  EXPECT_EQ(failed.result.type, msgpack::type::NIL);
  EXPECT_EQ(error_text(failed.error), "bad");
}

TEST(RpcEncoder, NotificationRoundTrips) {
  Message m = decode_one(encode_notification("toolhost.run", json::array({{{"buf", 3}}})));
  EXPECT_EQ(m.type, MessageType::Notification);
  EXPECT_EQ(m.method, "toolhost.run");
  EXPECT_EQ(to_json(m.params), json::array({{{"buf", 3}}}));
}

// Neovim's Buffer handle: ext type 0 whose payload is a msgpack integer.
msgpack::object_handle ext_handle(int8_t type, const std::string& payload) {
  msgpack::sbuffer buffer;
  msgpack::packer<msgpack::sbuffer> packer(buffer);
  packer.pack_ext(payload.size(), type);
  packer.pack_ext_body(payload.data(), payload.size());
  return msgpack::unpack(buffer.data(), buffer.size());
}

TEST(RpcConvert, NeovimHandlesBecomeIntegers) {
  auto buffer = ext_handle(0, "\x05");          // Buffer 5
  auto window = ext_handle(1, "\xcd\x03\xe8");  // Window 1000 (uint16)
  EXPECT_EQ(to_handle(buffer.get()), 5);
  EXPECT_EQ(to_json(buffer.get()), 5);
  EXPECT_EQ(to_handle(window.get()), 1000);
  auto garbage = ext_handle(0, "\xc1");
  EXPECT_EQ(to_handle(garbage.get()), std::nullopt);
  EXPECT_EQ(to_json(garbage.get()), nullptr);
}

TEST(RpcConvert, ErrorTextShapes) {
  auto as_object = [](const json& value) {
    std::vector<uint8_t> bytes = json::to_msgpack(value);
    return msgpack::unpack(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  };
  EXPECT_EQ(error_text(as_object(json::array({0, "Vim:E5108: boom"})).get()), "Vim:E5108: boom");
  EXPECT_EQ(error_text(as_object("plain").get()), "plain");
  EXPECT_EQ(error_text(as_object(json{{"code", 7}}).get()), R"({"code":7})");
}

TEST(RpcConvert, NonStringMapKeysArePrinted) {
  msgpack::sbuffer buffer;
  msgpack::packer<msgpack::sbuffer> packer(buffer);
  packer.pack_map(1);
  packer.pack(7);
  packer.pack("seven");
  auto handle = msgpack::unpack(buffer.data(), buffer.size());
  EXPECT_EQ(to_json(handle.get()), (json{{"7", "seven"}}));
}

}  // namespace
}  // namespace toolhost::rpc
