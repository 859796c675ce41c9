// Images and audio of a tool's result, saved in the cache directory and shown by path.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "mcp/media_files.h"
#include "test_jobs.h"

namespace toolhost::mcp {
namespace {

TEST(McpMediaFiles, Base64DecodesBothAlphabetsAndRefusesOtherText) {
  std::string out;
  EXPECT_TRUE(decode_base64("aGVs\nbG8=", out));
  EXPECT_EQ(out, "hello");
  EXPECT_TRUE(decode_base64("-_8=", out));
  EXPECT_EQ(out, std::string("\xfb\xff", 2));
  EXPECT_FALSE(decode_base64("not base64!", out));
  EXPECT_FALSE(decode_base64("aGVs=bG8", out)) << "data after padding";
}

TEST(McpMediaFiles, EachItemGetsAFileAndItsNoteThePath) {
  jobs::testing::TempDir cache;
  CallOutcome outcome =
      outcome_from_result({{"content",
                            {{{"type", "image"}, {"mimeType", "image/png"}, {"data", "aGVsbG8="}},
                             {{"type", "audio"}, {"mimeType", "audio/wav"}, {"data", "!!"}}}}});
  save_media(outcome, cache.path() + "/mcp", "s__t-1");
  const std::string path = cache.path() + "/mcp/s__t-1-1.png";
  EXPECT_EQ(outcome.text, "[image image/png, 5 bytes: " + path +
                              "]\n[audio audio/wav, 1 bytes: not base64, not saved]");
  std::ifstream file(path, std::ios::binary);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(file), {}), "hello");
}

}  // namespace
}  // namespace toolhost::mcp
