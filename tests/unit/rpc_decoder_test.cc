// The streaming decoder: any split of the byte stream yields the same messages; malformed
// input is an error value, never a crash, and the messages before it are delivered.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "rpc_decoder_helpers.h"

namespace toolhost::rpc {
namespace {

using namespace decoding;
using nlohmann::json;

TEST(RpcDecoder, DecodesRequestResponseAndNotification) {
  std::vector<Message> out;
  EXPECT_EQ(decode(three_messages(), out), std::nullopt);
  expect_three(out);
}

TEST(RpcDecoder, SameMessagesWhateverByteOffsetTheStreamIsSplitAt) {
  const std::string bytes = three_messages();
  for (size_t cut = 0; cut <= bytes.size(); ++cut) {
    SCOPED_TRACE("cut at " + std::to_string(cut));
    Decoder decoder;
    std::vector<Message> out;
    ASSERT_EQ(decoder.feed(bytes.substr(0, cut), out), std::nullopt);
    ASSERT_EQ(decoder.feed(bytes.substr(cut), out), std::nullopt);
    expect_three(out);
  }
}

TEST(RpcDecoder, OneByteAtATimeDeliversEachMessageWhenItsLastByteArrives) {
  const std::string first = encode_notification("a", json::array({1}));
  const std::string bytes = first + encode_notification("b", json::array({2}));
  Decoder decoder;
  std::vector<Message> out;
  for (size_t i = 0; i < bytes.size(); ++i) {
    ASSERT_EQ(decoder.feed(bytes.substr(i, 1), out), std::nullopt);
    EXPECT_EQ(out.size(), i + 1 < first.size() ? 0u : i + 1 < bytes.size() ? 1u : 2u) << i;
  }
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[1].method, "b");
}

TEST(RpcDecoder, ManyMessagesInOneRead) {
  std::string bytes;
  for (int i = 0; i < 2000; ++i) bytes += encode_notification("n", json::array({i}));
  std::vector<Message> out;
  ASSERT_EQ(decode(bytes, out), std::nullopt);
  ASSERT_EQ(out.size(), 2000u);
  for (int i = 0; i < 2000; ++i) ASSERT_EQ(to_json(out[i].params), json::array({i}));
}

TEST(RpcDecoder, MessagesStayValidAfterTheDecoderMovesOn) {
  // Each Message owns its memory: later reads (buffer growth) must not invalidate it.
  Decoder decoder;
  std::vector<Message> out;
  ASSERT_EQ(decoder.feed(encode_notification("n", json::array({"first"})), out), std::nullopt);
  ASSERT_EQ(decoder.feed(encode_notification("n", json::array({std::string(1 << 20, 'y')})), out),
            std::nullopt);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(to_json(out[0].params), json::array({"first"}));
}

TEST(RpcDecoder, TenMegabyteMessageInReadSizedChunks) {
  std::string payload(10 * 1024 * 1024, 'x');
  payload.front() = '<';
  payload.back() = '>';
  const std::string bytes = encode_request(3, "big", json::array({payload})) +
                            encode_notification("after", json::array());
  Decoder decoder;
  std::vector<Message> out;
  constexpr size_t kRead = 64 * 1024;  // what Peer reserves per read
  for (size_t at = 0; at < bytes.size(); at += kRead) {
    size_t n = std::min(kRead, bytes.size() - at);
    std::memcpy(decoder.reserve(kRead), bytes.data() + at, n);
    ASSERT_EQ(decoder.consumed(n, out), std::nullopt);
    if (at + n < bytes.size() - 16) {
      ASSERT_TRUE(out.empty()) << at;
    }
  }
  ASSERT_EQ(out.size(), 2u);
  const msgpack::object& param = out[0].params.via.array.ptr[0];
  ASSERT_EQ(param.type, msgpack::type::STR);
  ASSERT_EQ(param.via.str.size, payload.size());
  EXPECT_EQ(std::string_view(param.via.str.ptr, param.via.str.size), payload);
  EXPECT_EQ(out[1].method, "after");
}

TEST(RpcDecoder, EmptyReadIsNothing) {
  Decoder decoder;
  std::vector<Message> out;
  EXPECT_EQ(decoder.feed("", out), std::nullopt);
  EXPECT_TRUE(out.empty());
}

struct MalformedCase {
  const char* name;
  std::string bytes;
  const char* error;  // expected prefix of the error text
};

void PrintTo(const MalformedCase& c, std::ostream* os) {
  *os << c.name;
}

class RpcDecoderMalformed : public ::testing::TestWithParam<MalformedCase> {};

TEST_P(RpcDecoderMalformed, IsAnErrorNotACrash) {
  std::vector<Message> out;
  auto error = decode(GetParam().bytes, out);
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->rfind(GetParam().error, 0), 0u) << *error;
  EXPECT_TRUE(out.empty());
}

INSTANTIATE_TEST_SUITE_P(
    Cases, RpcDecoderMalformed,
    ::testing::Values(
        MalformedCase{"ReservedByte", "\xc1", "malformed msgpack"},
        MalformedCase{"NotAnArray", Raw().u(5).take(), "malformed message"},
        MalformedCase{"MapNotArray", Raw().map(0).take(), "malformed message"},
        MalformedCase{"RequestWithThreeItems", Raw().array(3).u(0).u(1).str("m").take(),
                      "malformed message"},
        MalformedCase{"RequestWithFiveItems",
                      Raw().array(5).u(0).u(1).str("m").array(0).nil().take(), "malformed message"},
        MalformedCase{"NotificationWithFourItems",
                      Raw().array(4).u(2).str("m").array(0).nil().take(), "malformed message"},
        MalformedCase{"UnknownTypeTag", Raw().array(4).u(3).u(1).str("m").array(0).take(),
                      "malformed message"},
        MalformedCase{"NegativeTypeTag", Raw().array(4).i(-1).u(1).str("m").array(0).take(),
                      "malformed message"},
        MalformedCase{"StringTypeTag", Raw().array(4).str("0").u(1).str("m").array(0).take(),
                      "malformed message"},
        MalformedCase{"StringMsgid", Raw().array(4).u(0).str("1").str("m").array(0).take(),
                      "malformed request"},
        MalformedCase{"NegativeMsgid", Raw().array(4).u(0).i(-1).str("m").array(0).take(),
                      "malformed request"},
        MalformedCase{"MsgidAbove32Bits",
                      Raw().array(4).u(0).u(uint64_t{1} << 32).str("m").array(0).take(),
                      "malformed request"},
        MalformedCase{"ResponseWithNilMsgid", Raw().array(4).u(1).nil().nil().nil().take(),
                      "malformed response"},
        MalformedCase{"IntegerMethod", Raw().array(4).u(0).u(1).u(9).array(0).take(),
                      "malformed request"},
        MalformedCase{"RequestParamsNotArray", Raw().array(4).u(0).u(1).str("m").map(0).take(),
                      "malformed request"},
        MalformedCase{"NotificationParamsNotArray", Raw().array(3).u(2).str("m").u(1).take(),
                      "malformed notification"},
        MalformedCase{"NotificationIntegerMethod", Raw().array(3).u(2).u(1).array(0).take(),
                      "malformed notification"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(RpcDecoder, MessagesBeforeAMalformedOneAreDelivered) {
  const std::string bytes = encode_notification("ok", json::array()) + "\xc1";
  std::vector<Message> out;
  auto error = decode(bytes, out);
  ASSERT_TRUE(error.has_value());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].method, "ok");
}

TEST(RpcDecoder, RandomBytesAndMutatedFramesNeverCrash) {
  // Deterministic: the same inputs every run. Each input either decodes or is an error.
  std::mt19937 random(20261123);
  const std::string valid = three_messages();
  for (int round = 0; round < 3000; ++round) {
    std::string bytes;
    if (round % 2 == 0) {
      bytes.resize(random() % 64);
      for (char& c : bytes) c = static_cast<char>(random());
    } else {
      bytes = valid;
      for (int flips = 1 + random() % 4; flips > 0; --flips) {
        bytes[random() % bytes.size()] = static_cast<char>(random());
      }
    }
    Decoder decoder(default_limits(), /*max_message_bytes=*/1 << 20);
    std::vector<Message> out;
    auto error = decoder.feed(bytes, out);
    for (const Message& m : out) {
      // Whatever was accepted is a well-formed message.
      if (m.type != MessageType::Response) {
        ASSERT_EQ(m.params.type, msgpack::type::ARRAY);
        (void)to_json(m.params);
      }
    }
    (void)error;
  }
}

}  // namespace
}  // namespace toolhost::rpc
