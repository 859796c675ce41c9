// The streaming decoder: any split of the byte stream yields the same messages; malformed
// input is an error value, never a crash; oversized headers are refused before allocating.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "rpc/convert.h"
#include "rpc/decoder.h"
#include "rpc/encoder.h"

namespace toolhost::rpc {
namespace {

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

std::string three_messages() {
  return encode_request(7, "nvim_buf_get_lines", json::array({1, 0, -1, true})) +
         encode_response(7, nullptr, json::array({"a", "b"})) +
         encode_notification("nvim_buf_lines_event", json::array({"x", json::object()}));
}

void expect_three(const std::vector<Message>& out) {
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

std::optional<std::string> decode(const std::string& bytes, std::vector<Message>& out) {
  Decoder decoder;
  return decoder.feed(bytes, out);
}

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

TEST(RpcDecoder, ArrayHeaderDeclaringFourGigaElementsIsRefusedWithoutAllocating) {
  // 0xdd = array 32: 4,294,967,295 elements would be ~100 GB of msgpack::object.
  std::vector<Message> out;
  auto error = decode("\xdd\xff\xff\xff\xff", out);
  ASSERT_TRUE(error.has_value());
  EXPECT_NE(error->find("array size overflow"), std::string::npos) << *error;
}

#if defined(__SANITIZE_ADDRESS__)
extern "C" int __sanitizer_install_malloc_and_free_hooks(void (*malloc_hook)(const volatile void*,
                                                                             size_t),
                                                         void (*free_hook)(const volatile void*));
size_t largest_allocation = 0;
#endif

TEST(RpcDecoder, HandlePayloadDeclaringAHugeArrayIsNoHandleAndAllocatesNothingLarge) {
  // Found by rpc_fuzz: a handle's ext payload was unpacked without limits, so 8 bytes on the
  // wire (fixext 8 holding an array-32 header) asked for ~100 GB. Under ASan the test watches
  // every allocation.
#if defined(__SANITIZE_ADDRESS__)
  static const bool hooked = __sanitizer_install_malloc_and_free_hooks(
      [](const volatile void*, size_t size) {
        largest_allocation = std::max(largest_allocation, size);
      },
      [](const volatile void*) {});
  ASSERT_TRUE(hooked);
#endif
  std::vector<Message> out;
  // [2, "ev", [ext 0 (fixext 8): dd ff ff ff ff 00 00 00]]
  ASSERT_EQ(Decoder().feed(Raw().array(3).u(2).str("ev").array(1).take() +
                               std::string("\xd7\x00\xdd\xff\xff\xff\xff\x00\x00\x00", 10),
                           out),
            std::nullopt);
  ASSERT_EQ(out.size(), 1u);
#if defined(__SANITIZE_ADDRESS__)
  largest_allocation = 0;
#endif
  EXPECT_EQ(to_handle(out[0].params.via.array.ptr[0]), std::nullopt);
  EXPECT_EQ(to_json(out[0].params), json::array({nullptr}));
#if defined(__SANITIZE_ADDRESS__)
  EXPECT_LT(largest_allocation, size_t{1} << 20);
#endif
}

TEST(RpcDecoder, NestedArrayHeaderDeclaringFourGigaElementsIsRefused) {
  std::vector<Message> out;
  auto error = decode(Raw().array(3).u(2).str("m").bytes("\xdd\xff\xff\xff\xff").take(), out);
  ASSERT_TRUE(error.has_value());
  EXPECT_NE(error->find("array size overflow"), std::string::npos) << *error;
}

TEST(RpcDecoder, MapHeaderDeclaringFourGigaPairsIsRefused) {
  std::vector<Message> out;
  auto error = decode("\xdf\xff\xff\xff\xff", out);
  ASSERT_TRUE(error.has_value());
  EXPECT_NE(error->find("map size overflow"), std::string::npos) << *error;
}

TEST(RpcDecoder, StrHeaderDeclaringFourGigabytesAllocatesNothingUpFront) {
  // 0xdb = str 32. The decoder waits for the bytes; the header alone reserves nothing, so a
  // test run under ASan (which refuses multi-GB allocations) passes only if nothing is sized
  // from the header.
  Decoder decoder;
  std::vector<Message> out;
  EXPECT_EQ(
      decoder.feed(
          Raw().array(3).u(2).str("m").array(1).bytes("\xdb\xff\xff\xff\xff").take() + "abc", out),
      std::nullopt);
  EXPECT_TRUE(out.empty());
}

void expect_too_large(const std::string& header) {
  Decoder decoder(default_limits(), /*max_message_bytes=*/256 * 1024);
  std::vector<Message> out;
  ASSERT_EQ(decoder.feed(header, out), std::nullopt);
  const std::string chunk(64 * 1024, 'z');
  std::optional<std::string> error;
  int chunks = 0;
  while (!error && chunks < 100) {
    error = decoder.feed(chunk, out);
    ++chunks;
  }
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(*error, "message too large: over 262144 bytes");
  EXPECT_EQ(chunks, 4);  // 4 × 64 KiB + the header is the first read past 256 KiB
  EXPECT_TRUE(out.empty());
}

TEST(RpcDecoder, StrHeaderDeclaringFourGigabytesFailsOnceTheMessageCapIsPassed) {
  expect_too_large(Raw().array(3).u(2).str("m").array(1).bytes("\xdb\xff\xff\xff\xff").take());
}

TEST(RpcDecoder, BinHeaderDeclaringFourGigabytesFailsOnceTheMessageCapIsPassed) {
  expect_too_large(Raw().array(3).u(2).str("m").array(1).bytes("\xc6\xff\xff\xff\xff").take());
}

TEST(RpcDecoder, MessageCapCountsOnlyTheMessageInProgress) {
  // Many small messages well past the cap in total are fine.
  Decoder decoder(default_limits(), /*max_message_bytes=*/1024);
  std::vector<Message> out;
  std::string bytes;
  for (int i = 0; i < 100; ++i)
    bytes += encode_notification("n", json::array({std::string(500, 'a')}));
  EXPECT_EQ(decoder.feed(bytes, out), std::nullopt);
  EXPECT_EQ(out.size(), 100u);
}

TEST(RpcDecoder, DeepNestingIsRefused) {
  // Deeper than the decoder's bound (what Neovim's Lua sends, ~4000 deep, is refused message
  // by message by the Peer: rpc_deep_message_test).
  Raw raw;
  raw.array(3).u(2).str("m");
  for (int i = 0; i < 6000; ++i) raw.array(1);
  raw.nil();
  std::vector<Message> out;
  auto error = decode(raw.take(), out);
  ASSERT_TRUE(error.has_value());
  EXPECT_NE(error->find("depth size overflow"), std::string::npos) << *error;
}

TEST(RpcDecoder, LimitsAreExactBoundaries) {
  msgpack::unpack_limit limits(/*array=*/4, /*map=*/2, /*str=*/8, /*bin=*/8, /*ext=*/8,
                               /*depth=*/8);
  {
    Decoder decoder(limits);
    std::vector<Message> out;
    // [2, "m", ["12345678"]]: an array of 3, a str of 8.
    EXPECT_EQ(decoder.feed(encode_notification("m", json::array({"12345678"})), out), std::nullopt);
    EXPECT_EQ(out.size(), 1u);
  }
  {
    Decoder decoder(limits);
    std::vector<Message> out;
    auto error = decoder.feed(encode_notification("m", json::array({"123456789"})), out);
    ASSERT_TRUE(error.has_value());
    EXPECT_NE(error->find("str size overflow"), std::string::npos) << *error;
  }
  {
    Decoder decoder(limits);
    std::vector<Message> out;
    auto error = decoder.feed(encode_notification("m", json::array({1, 2, 3, 4, 5})), out);
    ASSERT_TRUE(error.has_value());
    EXPECT_NE(error->find("array size overflow"), std::string::npos) << *error;
  }
}

TEST(RpcDecoder, DefaultLimitsAcceptLargeRealisticMessages) {
  // A 200k-line buffer in one nvim_buf_lines_event.
  json lines = json::array();
  for (int i = 0; i < 200000; ++i) lines.push_back("line");
  std::vector<Message> out;
  ASSERT_EQ(
      decode(encode_notification("nvim_buf_lines_event", json::array({1, 2, 0, -1, lines, false})),
             out),
      std::nullopt);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].params.via.array.ptr[4].via.array.size, 200000u);
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
