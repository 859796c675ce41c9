// The relay's peek at a JSON-RPC line: id, method, answer or not, from the top level only.
#include <gtest/gtest.h>

#include <string>

#include "mcp/message_peek.h"

namespace toolhost::mcp {
namespace {

TEST(MessagePeek, ARequestHasItsIdAndMethod) {
  PeekedMessage m =
      peek_message(R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"id":9,"method":"x"}})");
  ASSERT_TRUE(m.id);
  EXPECT_EQ(*m.id, 7);
  EXPECT_EQ(m.method, "tools/call");  // not the params' nested "method"
  EXPECT_TRUE(m.is_request());
  EXPECT_FALSE(m.is_answer);
}

TEST(MessagePeek, AnAnswerIsKnownWhicheverOrderItsKeysCome) {
  PeekedMessage first = peek_message(R"({"id":"a-1","jsonrpc":"2.0","result":{"id":3}})");
  EXPECT_TRUE(first.is_answer);
  EXPECT_EQ(*first.id, "a-1");
  PeekedMessage last = peek_message(R"({"error":{"code":-1,"message":"no","data":{"id":2}},"id":4})");
  EXPECT_TRUE(last.is_answer);
  EXPECT_EQ(*last.id, 4);
  EXPECT_FALSE(last.is_request());
}

TEST(MessagePeek, AnAnswersBodyIsNotReadPastItsId) {
  // Stops at "result" once the id is known: what follows, even broken, does not matter.
  PeekedMessage m = peek_message(R"({"id":1,"jsonrpc":"2.0","result":{"content":[{"text":"unfinished)");
  EXPECT_TRUE(m.is_answer);
  EXPECT_EQ(*m.id, 1);
}

TEST(MessagePeek, NotificationsAndNullIdsAreToldApart) {
  PeekedMessage notification = peek_message(R"({"jsonrpc":"2.0","method":"notifications/cancelled"})");
  EXPECT_FALSE(notification.id);
  EXPECT_EQ(notification.method, "notifications/cancelled");
  EXPECT_FALSE(notification.is_request());
  PeekedMessage parse_error = peek_message(R"({"jsonrpc":"2.0","id":null,"error":{"code":-32700}})");
  ASSERT_TRUE(parse_error.id);
  EXPECT_TRUE(parse_error.id->is_null());
  EXPECT_TRUE(parse_error.is_answer);
}

TEST(MessagePeek, WhatIsNotOneJsonObjectIsNothing) {
  for (const std::string line : {R"([{"id":1,"method":"ping"}])", R"("text")", R"({"id":1,"method":"pi)",
                                 "not json", R"({"id":{"nested":1},"method":"ping"})"}) {
    PeekedMessage m = peek_message(line);
    EXPECT_FALSE(m.is_request()) << line;
    EXPECT_FALSE(m.is_answer) << line;
  }
}

}  // namespace
}  // namespace toolhost::mcp
