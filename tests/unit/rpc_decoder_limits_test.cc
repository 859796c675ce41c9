// The decoder's limits: headers declaring gigabytes or billions of elements are refused (or
// fail once the message cap is passed) before anything large is allocated; nesting is
// bounded; the limits are exact, and realistic large messages pass the defaults.
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

TEST(RpcDecoder, ArrayHeaderDeclaringFourGigaElementsIsRefusedWithoutAllocating) {
  // 0xdd = array 32: 4,294,967,295 elements would be ~100 GB of msgpack::object.
  std::vector<Message> out;
  auto error = decode("\xdd\xff\xff\xff\xff", out);
  ASSERT_TRUE(error.has_value());
  EXPECT_NE(error->find("array size overflow"), std::string::npos) << *error;
}

// ASan's, when the program runs under it (asked at run time: the sanitizer build links the
// normal build's compiled tests).
extern "C" __attribute__((weak)) int __sanitizer_install_malloc_and_free_hooks(
    void (*malloc_hook)(const volatile void*, size_t), void (*free_hook)(const volatile void*));
size_t largest_allocation = 0;

TEST(RpcDecoder, HandlePayloadDeclaringAHugeArrayIsNoHandleAndAllocatesNothingLarge) {
  // Found by rpc_fuzz: a handle's ext payload was unpacked without limits, so 8 bytes on the
  // wire (fixext 8 holding an array-32 header) asked for ~100 GB. Under ASan the test watches
  // every allocation.
  const bool watched = __sanitizer_install_malloc_and_free_hooks != nullptr;
  if (watched) {
    static const bool hooked = __sanitizer_install_malloc_and_free_hooks(
        [](const volatile void*, size_t size) {
          largest_allocation = std::max(largest_allocation, size);
        },
        [](const volatile void*) {});
    ASSERT_TRUE(hooked);
  }
  std::vector<Message> out;
  // [2, "ev", [ext 0 (fixext 8): dd ff ff ff ff 00 00 00]]
  ASSERT_EQ(Decoder().feed(Raw().array(3).u(2).str("ev").array(1).take() +
                               std::string("\xd7\x00\xdd\xff\xff\xff\xff\x00\x00\x00", 10),
                           out),
            std::nullopt);
  ASSERT_EQ(out.size(), 1u);
  largest_allocation = 0;
  EXPECT_EQ(to_handle(out[0].params.via.array.ptr[0]), std::nullopt);
  EXPECT_EQ(to_json(out[0].params), json::array({nullptr}));
  if (watched) {
    EXPECT_LT(largest_allocation, size_t{1} << 20);
  }
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

}  // namespace
}  // namespace toolhost::rpc
