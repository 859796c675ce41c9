// JSON-RPC 2.0 messages and newline framing: what is accepted, what is answered with which
// error, and that a hostile line costs at most the cap.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "jsonrpc/line_splitter.h"
#include "jsonrpc/message.h"

namespace toolhost::jsonrpc {
namespace {

TEST(JsonRpcMessage, RequestNotificationAndResponseAreTold) {
  auto request = parse_message(R"({"jsonrpc":"2.0","id":7,"method":"tools/list","params":{}})");
  ASSERT_TRUE(request.message);
  EXPECT_TRUE(request.message->is_request());
  EXPECT_EQ(request.message->id, 7);
  EXPECT_EQ(request.message->method, "tools/list");

  auto note = parse_message(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  ASSERT_TRUE(note.message);
  EXPECT_TRUE(note.message->is_notification());
  EXPECT_TRUE(note.message->params.is_null());

  auto reply = parse_message(R"({"jsonrpc":"2.0","id":"a","result":{"ok":true}})");
  ASSERT_TRUE(reply.message);
  EXPECT_TRUE(reply.message->is_response());
  EXPECT_EQ(reply.message->result["ok"], true);

  auto failed =
      parse_message(R"({"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"no","data":1}})");
  ASSERT_TRUE(failed.message && failed.message->error);
  EXPECT_EQ(failed.message->error->code, code::kMethodNotFound);
  EXPECT_EQ(failed.message->error->message, "no");
  EXPECT_EQ(failed.message->error->data, 1);
}

TEST(JsonRpcMessage, NotJsonIsAParseErrorWithNullId) {
  auto parsed = parse_message("{\"jsonrpc\":\"2.0\",\"id\":1,");
  ASSERT_TRUE(parsed.error);
  EXPECT_EQ(parsed.error->code, code::kParseError);
  EXPECT_TRUE(parsed.id.is_null());
}

TEST(JsonRpcMessage, InvalidRequestsKeepTheirIdForTheAnswer) {
  auto no_version = parse_message(R"({"id":4,"method":"ping"})");
  ASSERT_TRUE(no_version.error);
  EXPECT_EQ(no_version.error->code, code::kInvalidRequest);
  EXPECT_EQ(no_version.id, 4);

  auto bad_params = parse_message(R"({"jsonrpc":"2.0","id":5,"method":"ping","params":3})");
  ASSERT_TRUE(bad_params.error);
  EXPECT_EQ(bad_params.id, 5);

  auto bad_method = parse_message(R"({"jsonrpc":"2.0","id":6,"method":1})");
  ASSERT_TRUE(bad_method.error);
  EXPECT_EQ(bad_method.error->code, code::kInvalidRequest);
}

TEST(JsonRpcMessage, IdsMustBeStringsOrIntegers) {
  for (const char* text : {R"({"jsonrpc":"2.0","id":1.5,"method":"ping"})",
                           R"({"jsonrpc":"2.0","id":{},"method":"ping"})",
                           R"({"jsonrpc":"2.0","id":null,"method":"ping"})"}) {
    auto parsed = parse_message(text);
    ASSERT_TRUE(parsed.error) << text;
    EXPECT_EQ(parsed.error->code, code::kInvalidRequest) << text;
  }
}

TEST(JsonRpcMessage, BatchesAndScalarsAreRefused) {
  auto batch = parse_message(R"([{"jsonrpc":"2.0","id":1,"method":"ping"}])");
  ASSERT_TRUE(batch.error);
  EXPECT_NE(batch.error->message.find("batch"), std::string::npos);
  auto scalar = parse_message("42");
  ASSERT_TRUE(scalar.error);
  EXPECT_EQ(scalar.error->code, code::kInvalidRequest);
}

TEST(JsonRpcMessage, AResponseHoldsExactlyOneOfResultAndError) {
  EXPECT_TRUE(parse_message(R"({"jsonrpc":"2.0","id":1})").error);
  EXPECT_TRUE(
      parse_message(R"({"jsonrpc":"2.0","id":1,"result":1,"error":{"code":1,"message":""}})")
          .error);
  EXPECT_TRUE(parse_message(R"({"jsonrpc":"2.0","id":1,"error":{"message":"no code"}})").error);
}

TEST(JsonRpcMessage, DeepNestingIsRefusedBeforeAnythingWalksIt) {
  std::string deep = R"({"jsonrpc":"2.0","id":1,"method":"x","params":{"a":)";
  deep += std::string(100000, '[') + std::string(100000, ']') + "}}";
  auto parsed = parse_message(deep);
  ASSERT_TRUE(parsed.error);
  EXPECT_EQ(parsed.error->code, code::kParseError);
  EXPECT_NE(parsed.error->message.find("nested deeper"), std::string::npos);

  std::string fine = R"({"jsonrpc":"2.0","id":1,"method":"x","params":{"a":)";
  fine += std::string(100, '[') + std::string(100, ']') + "}}";
  EXPECT_TRUE(parse_message(fine).message);
}

TEST(JsonRpcMessage, EncodeRoundTripsEveryKind) {
  for (const Message& message :
       {make_request(1, "tools/call", {{"name", "x"}}), make_notification("ping", nullptr),
        make_result("id-1", {{"content", Json::array()}}),
        make_error(nullptr, Error{code::kParseError, "bad", {{"line", 3}}})}) {
    std::string text = encode(message);
    EXPECT_EQ(text.find('\n'), std::string::npos);
    auto parsed = parse_message(text);
    ASSERT_TRUE(parsed.message) << text;
    EXPECT_EQ(parsed.message->kind, message.kind);
    EXPECT_EQ(parsed.message->id, message.id);
    EXPECT_EQ(parsed.message->method, message.method);
    EXPECT_EQ(parsed.message->result, message.result);
    EXPECT_EQ(parsed.message->error.has_value(), message.error.has_value());
  }
}

TEST(JsonRpcMessage, InvalidUtf8InAResultIsReplacedNotThrown) {
  std::string text = encode(make_result(1, {{"text", std::string("ok \xff\xfe end")}}));
  auto parsed = parse_message(text);
  ASSERT_TRUE(parsed.message);
  std::string out = parsed.message->result["text"].get<std::string>();
  EXPECT_EQ(out.rfind("ok ", 0), 0u);
  EXPECT_NE(out.find("\xEF\xBF\xBD"), std::string::npos);  // U+FFFD
}

struct Split {
  std::vector<std::string> lines;
  int oversized = 0;
  LineSplitter splitter{[this](std::string_view line) { lines.emplace_back(line); },
                        [this](size_t) { ++oversized; }, 16};
};

TEST(JsonRpcLineSplitter, LinesArriveWholeHoweverTheBytesAreCut) {
  Split split;
  for (char c : std::string("one\r\ntwo\n\nthree\n")) split.splitter.feed(std::string_view(&c, 1));
  split.splitter.feed("four\nfi");
  split.splitter.feed("ve\n");
  EXPECT_EQ(split.lines, (std::vector<std::string>{"one", "two", "three", "four", "five"}));
  EXPECT_EQ(split.splitter.buffered(), 0u);
}

TEST(JsonRpcLineSplitter, AnOversizedLineIsDroppedReportedOnceAndTheNextLineArrives) {
  Split split;
  split.splitter.feed("0123456789");
  split.splitter.feed("0123456789");  // over 16: dropped from here
  split.splitter.feed("0123456789");
  EXPECT_LE(split.splitter.buffered(), 16u);
  split.splitter.feed("tail\nnext\n");
  EXPECT_EQ(split.oversized, 1);
  EXPECT_EQ(split.lines, (std::vector<std::string>{"next"}));

  split.splitter.feed(std::string(40, 'x') + "\nlast\n");
  EXPECT_EQ(split.oversized, 2);
  EXPECT_EQ(split.lines.back(), "last");
}

}  // namespace
}  // namespace toolhost::jsonrpc
