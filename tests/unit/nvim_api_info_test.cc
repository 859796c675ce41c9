// nvim::parse_api_info reads the channel and version from nvim_get_api_info's msgpack answer
// as it is (no JSON copy of its function list), and a malformed answer gives an empty info.
#include <gtest/gtest.h>

#include <msgpack.hpp>

#include "nvim/api.h"

namespace toolhost::nvim {
namespace {

// Packs [channel, {functions = [...], version = {...}}] the way Neovim answers.
msgpack::object_handle api_info_answer(int64_t channel, bool with_version) {
  msgpack::sbuffer buffer;
  msgpack::packer<msgpack::sbuffer> pack(buffer);
  pack.pack_array(2);
  pack.pack(channel);
  pack.pack_map(with_version ? 2 : 1);
  pack.pack(std::string("functions"));
  pack.pack_array(2);
  for (const char* name : {"nvim_buf_attach", "nvim_exec_lua"}) {
    pack.pack_map(1);
    pack.pack(std::string("name"));
    pack.pack(std::string(name));
  }
  if (with_version) {
    pack.pack(std::string("version"));
    pack.pack_map(5);
    pack.pack(std::string("major"));
    pack.pack(0);
    pack.pack(std::string("minor"));
    pack.pack(7);
    pack.pack(std::string("patch"));
    pack.pack(2);
    pack.pack(std::string("api_level"));
    pack.pack(9);
    pack.pack(std::string("prerelease"));
    pack.pack(false);
  }
  return msgpack::unpack(buffer.data(), buffer.size());
}

TEST(NvimApiInfo, TheChannelAndVersionAreReadFromTheMsgpackAnswer) {
  msgpack::object_handle answer = api_info_answer(3, true);
  ApiInfo info = parse_api_info(answer.get());
  EXPECT_EQ(info.channel, 3);
  EXPECT_EQ(info.api_level, 9);
  EXPECT_EQ(info.version, "0.7.2");
}

TEST(NvimApiInfo, AnAnswerWithoutAVersionKeepsTheChannelOnly) {
  msgpack::object_handle answer = api_info_answer(5, false);
  ApiInfo info = parse_api_info(answer.get());
  EXPECT_EQ(info.channel, 5);
  EXPECT_EQ(info.api_level, 0);
  EXPECT_EQ(info.version, "");
}

TEST(NvimApiInfo, AMalformedAnswerGivesAnEmptyInfo) {
  msgpack::sbuffer buffer;
  msgpack::packer<msgpack::sbuffer> pack(buffer);
  pack.pack_array(2);
  pack.pack(std::string("not a channel"));
  pack.pack(42);
  msgpack::object_handle answer = msgpack::unpack(buffer.data(), buffer.size());
  ApiInfo info = parse_api_info(answer.get());
  EXPECT_EQ(info.channel, 0);
  EXPECT_EQ(info.version, "");
}

}  // namespace
}  // namespace toolhost::nvim
