// Hostile output (SPEC 5): invalid UTF-8, NUL bytes, ANSI and OSC escapes, `\r` progress bars,
// a 10 MB line and binary garbage are shown safely — the buffer text stays valid UTF-8, lines
// are cut — and nothing is lost from the log.
#include <gtest/gtest.h>

#include "e2e/chat_helpers.h"

namespace toolhost::e2e {
namespace {

using nlohmann::json;

bool valid_utf8(const std::string& s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (size_t k = 1; k < n; ++k) {
      if ((static_cast<unsigned char>(s[i + k]) >> 6) != 0x2) return false;
    }
    i += n;
  }
  return true;
}

TEST(HostileOutput, IsShownSafelyAndKeptWholeInTheLog) {
  NvimHarness nvim;
  record_events(nvim, {"ToolhostJobFinished"});
  int64_t buf = open_chat(nvim, "hostile.chat.md");
  const std::string command =
      R"(printf 'a\377\376b\000c\n\033[31mred\033[0m \033]0;title\007done\n'; )"
      R"(printf 'progress 10%%\rprogress 100%%\n'; head -c 10000 /dev/zero | tr '\000' x; echo; )"
      R"(head -c 65536 /dev/urandom; echo; head -c 10000000 /dev/zero | tr '\000' y; echo)";
  reply(nvim, buf, bash_reply({command}), false);
  set_cursor(nvim, row_of(nvim, buf, "```bash") + 1);
  nvim.command("ToolRun");
  json done = wait_event(nvim, "ToolhostJobFinished");
  ASSERT_EQ(done["status"], "succeeded");

  Lines lines = nvim.lines(buf);
  for (const auto& line : lines) EXPECT_TRUE(valid_utf8(line)) << json(line).dump();
  std::string text = text_of(nvim, buf);
  EXPECT_NE(text.find("\na<ff><fe>b^@c\n"), std::string::npos) << text.substr(0, 600);
  EXPECT_NE(text.find("\nred done\n"), std::string::npos);  // escapes gone
  EXPECT_NE(text.find("\nprogress 100%\n"), std::string::npos);
  // A long line is cut after 500 code points; the 10 MB line, longer than the output kept in
  // memory, is counted among the omitted lines that :ToolOutput shows.
  size_t xs = text.find("xxxxxxxxxx");
  ASSERT_NE(xs, std::string::npos) << text.substr(0, 3000);
  EXPECT_EQ(text.substr(xs - 1, text.find('\n', xs) - xs + 2),
            "\n" + std::string(500, 'x') + "…\n");
  EXPECT_NE(text.find(" lines omitted (:ToolOutput " + done["id"].get<std::string>() + ") …"),
            std::string::npos);
  for (const auto& line : lines) EXPECT_LE(line.size(), 2000u);  // 500 code points at most
  size_t body = 0;
  for (size_t i = row_of(nvim, buf, "Exit code: 0"); i < lines.size() && lines[i] != "````"; ++i) {
    ++body;
  }
  EXPECT_LE(body, 1u + 200u + 2u);  // Stdout:, output.max_lines, two cut markers

  // The log holds every byte the job wrote, in the order it wrote them.
  json job = nvim.lua("return require('toolhost').job(...)", json::array({done["id"]}));
  const uint64_t written =
      job["stdout"]["bytes"].get<uint64_t>() + job["stderr"]["bytes"].get<uint64_t>();
  EXPECT_EQ(written, 7u + 28u + 27u + 10001u + 65537u + 10000001u) << job.dump();
  EXPECT_EQ(job["log_bytes"], written);
}

}  // namespace
}  // namespace toolhost::e2e
