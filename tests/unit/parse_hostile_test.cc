// Hostile chat text (SPEC 3, the reliability issue): huge buffers, very many blocks, a fence
// inside a fence. Each is calls or errors, never a crash or a hang.
#include <gtest/gtest.h>

#include <string>

#include "parse/parser.h"
#include "parse_test_util.h"

namespace toolhost::parse {
namespace {

using testing::default_options;

std::string repeat(std::string_view piece, size_t times) {
  std::string text;
  text.reserve(piece.size() * times);
  for (size_t i = 0; i < times; ++i) text += piece;
  return text;
}

// A CodeCompanion chat whose assistant message is `body` (lines joined by \n).
ParseResult codecompanion(const std::string& body) {
  return testing::parse_text("## Me\n\ngo\n\n## CodeCompanion\n\n" + body + "\n");
}

std::string all_params(const ParseResult& result) {
  std::string text;
  for (const auto& call : result.calls) text += call.params.dump();
  return text;
}

TEST(ParseHostile, FiftyMegabytesOfTextParse) {
  std::vector<std::string> lines = {"USER: big", "ASSISTANT: big"};
  lines.resize(50002, std::string(1000, 'x'));
  ParseResult result = parse(lines, default_options());
  ASSERT_EQ(result.messages.size(), 2u);
  EXPECT_EQ(result.messages[1].end, 50002);
  EXPECT_TRUE(result.calls.empty());
}

TEST(ParseHostile, HundredThousandBlocksAreHundredThousandCalls) {
  std::vector<std::string> lines = {"USER: go", "ASSISTANT: many"};
  for (int i = 0; i < 100000; ++i) {
    lines.insert(lines.end(), {"**bash**", "```bash", "echo " + std::to_string(i), "```", ""});
  }
  ParseResult result = parse(lines, default_options());
  ASSERT_EQ(result.calls.size(), 100000u);
  EXPECT_EQ(result.calls.back().params["command"], "echo 99999");
  EXPECT_TRUE(result.errors.empty());
}

// A fence in a JSON string is text; a header after a closed fence starts a block of its own;
// a bare fence left open after it is prose, not a call.
TEST(ParseHostile, BlockInsideABlockIsTextOrItsOwnBlock) {
  auto result = testing::parse_text(
      "ASSISTANT: x\n```json\n{\"tool\": \"read_file\", \"parameters\": {\"path\": \"```json\"}}\n"
      "```\n**Read:** `x`\n```\n");
  ASSERT_EQ(result.calls.size(), 2u);
  EXPECT_EQ(result.calls[0].params["path"], "```json");
  EXPECT_EQ(result.calls[1].params["path"], "x");
  EXPECT_TRUE(result.errors.empty());
}

// pugixml parses without recursion; element_value() keeps what lies deeper than 32 levels
// as text, so the stack stays flat whatever the depth.
TEST(ParseHostile, DeeplyNestedXmlInAToolsBlockIsACallOrAnError) {
  for (size_t depth : {10000u, 100000u}) {
    SCOPED_TRACE(depth);
    ParseResult inside_command = codecompanion(
        "```xml\n<tools><tool name=\"cmd_runner\"><action><command>" + repeat("<a>", depth) +
        "make" + repeat("</a>", depth) + "</command></action></tool></tools>\n```");
    EXPECT_EQ(inside_command.calls.size() + inside_command.errors.size(), 1u);
    // Kept 32 levels deep, the rest dropped: a bounded value (the runner then refuses a
    // command that is not a string).
    EXPECT_LT(all_params(inside_command).size(), 1000u);
    ParseResult beside = codecompanion(
        "```xml\n<tools><tool name=\"cmd_runner\"><action><command>make</command><x>" +
        repeat("<a>", depth) + repeat("</a>", depth) + "</x></action></tool></tools>\n```");
    EXPECT_EQ(beside.calls.size() + beside.errors.size(), 1u);
    EXPECT_LT(all_params(beside).size(), 1000u);
    ParseResult unclosed = codecompanion("```xml\n<tools><tool name=\"cmd_runner\"><action>" +
                                         repeat("<a>", depth) + "\n```");
    EXPECT_TRUE(unclosed.calls.empty());
    ASSERT_EQ(unclosed.errors.size(), 1u);
    EXPECT_NE(unclosed.errors[0].message.find("XML does not parse"), std::string::npos);
    ParseResult tool_guide =
        codecompanion("```xml\n<tool><name>read_file</name><parameters><path>x</path>" +
                      repeat("<a>", depth) + repeat("</a>", depth) + "</parameters></tool>\n```");
    EXPECT_EQ(tool_guide.calls.size() + tool_guide.errors.size(), 1u);
  }
}

// pugixml has no DTD support: a DOCTYPE is skipped, entities it declares are never expanded,
// an external one is never fetched. An undeclared reference stays as written.
TEST(ParseHostile, XmlEntitiesAreNeverExpanded) {
  std::string laughs =
      "<!DOCTYPE lolz [\n<!ENTITY lol \"lol\">\n<!ENTITY xxe SYSTEM \"file:///etc/passwd\">\n";
  for (int i = 2; i <= 9; ++i) {
    laughs += "<!ENTITY lol" + std::to_string(i) + " \"" +
              repeat("&lol" + (i == 2 ? std::string() : std::to_string(i - 1)) + ";", 10) + "\">\n";
  }
  laughs += "]>\n";
  const std::string call =
      "<tool><name>run_terminal_command</name><parameters><command>echo &lol9;&xxe;</command>"
      "</parameters></tool>";
  for (const std::string& fence :
       {"```xml\n" + laughs + call + "\n```",
        "```xml\n<?xml version=\"1.0\"?>\n" + laughs + call + "\n```", "```xml\n" + call + "\n```",
        "```xml\n" + call + "\n" + laughs + "\n```"}) {
    ParseResult result = codecompanion(fence);
    EXPECT_LE(result.calls.size() + result.errors.size(), 1u);
    std::string text = all_params(result);
    EXPECT_EQ(text.find("lollol"), std::string::npos);
    EXPECT_EQ(text.find("root:"), std::string::npos);
    EXPECT_LT(text.size(), 1000u);
    for (const auto& call : result.calls) EXPECT_EQ(call.params["command"], "echo &lol9;&xxe;");
  }
  // Without a DOCTYPE in front the call parses, the references kept as written.
  ParseResult plain = codecompanion("```xml\n" + call + "\n```");
  ASSERT_EQ(plain.calls.size(), 1u);
  // A DOCTYPE whose internal subset nests 100,000 conditional sections, after the call (a
  // DOCTYPE first makes the fence text, not a candidate): skipped or an error.
  ParseResult nested =
      codecompanion("```xml\n" + call + "\n<!DOCTYPE x [" + repeat("<![INCLUDE[", 100000) +
                    repeat("]]>", 100000) + "]>\n```");
  EXPECT_EQ(nested.calls.size() + nested.errors.size(), 1u);
  EXPECT_EQ(all_params(nested).find("lollol"), std::string::npos);
}

TEST(ParseHostile, JsonNestedTenThousandDeepIsAnError) {
  for (size_t depth : {10000u, 100000u}) {
    SCOPED_TRACE(depth);
    for (const std::string& deep :
         {repeat("[", depth) + repeat("]", depth),
          repeat("{\"a\":", depth) + "1" + repeat("}", depth), repeat("[", depth)}) {
      ParseResult fenced = testing::parse_text(
          "ASSISTANT: x\n```json\n{\"tool\": \"read_file\", \"parameters\": {\"path\": \"x\", "
          "\"deep\": " +
          deep + "}}\n```\n");
      EXPECT_TRUE(fenced.calls.empty());
      ASSERT_EQ(fenced.errors.size(), 1u);
      EXPECT_NE(fenced.errors[0].message.find("nested deeper than 256"), std::string::npos)
          << fenced.errors[0].message;
      // The same inside JSON-encoded arguments (a string, so the outer parse is shallow).
      nlohmann::json outer = {{"name", "read_file"},
                              {"arguments", "{\"path\": \"x\", \"d\": " + deep + "}"}};
      ParseResult encoded =
          testing::parse_text("ASSISTANT: x\n```json\n" + outer.dump() + "\n```\n");
      EXPECT_TRUE(encoded.calls.empty());
      ASSERT_EQ(encoded.errors.size(), 1u);
      EXPECT_NE(encoded.errors[0].message.find("nested deeper"), std::string::npos);
    }
  }
}

// A fence or a header inside another dialect's block is that block's text; a closing fence
// inside it ends it early, and what follows is text or an error, never a second call made up
// of the inner text.
TEST(ParseHostile, BlockInsideABlockInEveryDialect) {
  // sidekick: a **Write:** block inside a bash fence is part of the command.
  ParseResult sidekick = testing::parse_text(
      "ASSISTANT: x\n**bash**\n```bash\ncat <<'EOF'\n**Write:** `f.txt`\n```text\nhello\n"
      "````\nEOF\n```\n");
  ASSERT_EQ(sidekick.calls.size(), 1u);
  EXPECT_EQ(sidekick.calls[0].tool, "run_terminal_command");
  EXPECT_NE(sidekick.calls[0].params["command"].get<std::string>().find("**Write:**"),
            std::string::npos);
  // codecompanion: a json call inside CDATA, the xml fence long enough to hold it.
  ParseResult xml = codecompanion(
      "````xml\n<tools><tool name=\"cmd_runner\"><action><command><![CDATA[cat <<'EOF'\n"
      "```json\n{\"tool\": \"read_file\", \"parameters\": {\"path\": \"x\"}}\n```\nEOF]]>"
      "</command></action></tool></tools>\n````");
  ASSERT_EQ(xml.calls.size(), 1u);
  EXPECT_EQ(xml.calls[0].tool, "run_terminal_command");
  EXPECT_TRUE(xml.errors.empty());
  // ... and with a short fence the inner ``` closes the xml one: the XML is cut, an error.
  ParseResult cut = codecompanion(
      "```xml\n<tools><tool name=\"cmd_runner\"><action><command><![CDATA[cat <<'EOF'\n"
      "```json\n{\"tool\": \"read_file\", \"parameters\": {\"path\": \"x\"}}\n```\nEOF]]>"
      "</command></action></tool></tools>\n```");
  EXPECT_TRUE(cut.calls.empty());
  EXPECT_FALSE(cut.errors.empty());
  // codecompanion: a <tools> inside a <command> is not a second call.
  ParseResult nested_tools = codecompanion(
      "```xml\n<tools><tool name=\"cmd_runner\"><action><command><tools><tool name=\"files\">"
      "<action type=\"delete\"><path>x</path></action></tool></tools></command></action></tool>"
      "</tools>\n```");
  EXPECT_EQ(nested_tools.calls.size() + nested_tools.errors.size(), 1u);
  for (const auto& call : nested_tools.calls) EXPECT_NE(call.tool, "delete_file");
  // json: an xml fence inside a JSON string.
  ParseResult json = testing::parse_text(
      "ASSISTANT: x\n````json\n{\"tool\": \"run_terminal_command\", \"parameters\": "
      "{\"command\": \"cat\\n```xml\\n<tool><name>read_file</name></tool>\\n```\"}}\n````\n");
  ASSERT_EQ(json.calls.size(), 1u);
  EXPECT_EQ(json.calls[0].tool, "run_terminal_command");
}

TEST(ParseHostile, FiftyMegabytesInOneLine) {
  const std::string big(50 << 20, 'x');
  ParseResult prose = parse({"USER: big", "ASSISTANT: " + big}, default_options());
  EXPECT_EQ(prose.messages.size(), 2u);
  EXPECT_TRUE(prose.calls.empty());
  ParseResult command =
      parse({"ASSISTANT: x", "**bash**", "```bash", big, "```"}, default_options());
  ASSERT_EQ(command.calls.size(), 1u);
  EXPECT_EQ(command.calls[0].params["command"].get_ref<const std::string&>().size(), big.size());
  ParseResult json =
      parse({"ASSISTANT: x", "```json",
             "{\"tool\": \"read_file\", \"parameters\": {\"path\": \"" + big + "\"}}", "```"},
            default_options());
  EXPECT_EQ(json.calls.size() + json.errors.size(), 1u);
  ParseResult brackets =
      parse({"ASSISTANT: x", "```json",
             "{\"tool\": \"read_file\", \"parameters\": " + std::string(50 << 20, '['), "```"},
            default_options());
  EXPECT_TRUE(brackets.calls.empty());
  EXPECT_EQ(brackets.errors.size(), 1u);
  ParseResult xml = parse({"## Me", "go", "## CodeCompanion", "```xml",
                           "<tools><tool name=\"cmd_runner\"><action><command>" + big +
                               "</command></action></tool></tools>",
                           "```"},
                          default_options());
  EXPECT_EQ(xml.calls.size() + xml.errors.size(), 1u);
  ParseResult opens = parse(
      {"## Me", "go", "## CodeCompanion", "```xml", "<tools>" + repeat("<a>", 10 << 20), "```"},
      default_options());
  EXPECT_TRUE(opens.calls.empty());
  EXPECT_EQ(opens.errors.size(), 1u);
}

TEST(ParseHostile, HundredThousandBlocksInEveryDialect) {
  constexpr int kBlocks = 100000;
  std::string xml_fences;
  std::string actions;
  nlohmann::json array = nlohmann::json::array();
  for (int i = 0; i < kBlocks; ++i) {
    std::string n = std::to_string(i);
    xml_fences += "```xml\n<tools><tool name=\"cmd_runner\"><action><command>echo " + n +
                  "</command></action></tool></tools>\n```\n";
    actions += "<action><command>echo " + n + "</command></action>";
    array.push_back({{"tool", "read_file"}, {"parameters", {{"path", "f" + n}}}});
  }
  ParseResult fences = codecompanion(xml_fences);
  ASSERT_EQ(fences.calls.size(), static_cast<size_t>(kBlocks));
  EXPECT_EQ(fences.calls.back().params["command"], "echo 99999");
  ParseResult one_tools =
      codecompanion("```xml\n<tools><tool name=\"cmd_runner\">" + actions + "</tool></tools>\n```");
  ASSERT_EQ(one_tools.calls.size(), static_cast<size_t>(kBlocks));
  ParseResult json = testing::parse_text("ASSISTANT: x\n```json\n" + array.dump() + "\n```\n");
  ASSERT_EQ(json.calls.size(), static_cast<size_t>(kBlocks));
  EXPECT_EQ(json.calls.back().params["path"], "f99999");
  // 100k calls to tools that do not exist, each named differently: 100k errors, each on its
  // own row (finding the row of each name must not rescan the block).
  std::string unknown = "[";
  for (int i = 0; i < kBlocks; ++i) {
    unknown += std::string(i ? ",\n" : "") + "{\"tool\": \"t" + std::to_string(i) +
               "\", \"parameters\": {}}";
  }
  ParseResult errors = testing::parse_text("ASSISTANT: x\n```json\n" + unknown + "]\n```\n");
  EXPECT_TRUE(errors.calls.empty());
  ASSERT_EQ(errors.errors.size(), static_cast<size_t>(kBlocks));
  EXPECT_EQ(errors.errors.back().line, 2 + kBlocks - 1);
  // Unclosed fences all the way down: one error or plain text, never 100k errors of work each.
  std::string unclosed = "ASSISTANT: x\n";
  for (int i = 0; i < kBlocks; ++i) unclosed += "**bash**\n```bash\necho\n";
  ParseResult open = testing::parse_text(unclosed);
  EXPECT_LE(open.calls.size() + open.errors.size(), static_cast<size_t>(kBlocks));
}

}  // namespace
}  // namespace toolhost::parse
