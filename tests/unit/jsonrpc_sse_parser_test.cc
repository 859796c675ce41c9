// Server-Sent Events as MCP's Streamable HTTP sends them: what is an event, what a reconnection
// resumes from, and that a hostile stream costs at most the cap.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "jsonrpc/sse_parser.h"

namespace toolhost::jsonrpc {
namespace {

struct Collected {
  std::vector<SseEvent> events;
  std::vector<size_t> oversized;
  SseParser parser;
  explicit Collected(size_t cap = kMaxMessageBytes)
      : parser([this](const SseEvent& e) { events.push_back(e); },
               [this](size_t limit) { oversized.push_back(limit); }, cap) {}
};

TEST(SseParser, DataLinesJoinWithNewlinesAndABlankLineEndsTheEvent) {
  Collected c;
  c.parser.feed("event: message\nid: 7\ndata: {\"a\":\ndata:1}\n\n");
  ASSERT_EQ(c.events.size(), 1u);
  EXPECT_EQ(c.events[0].type, "message");
  EXPECT_EQ(c.events[0].data, "{\"a\":\n1}");
  EXPECT_EQ(c.events[0].id, "7");
  EXPECT_EQ(c.parser.last_event_id(), "7");
}

TEST(SseParser, AnEventWithoutItsBlankLineIsNotDispatched) {
  Collected c;
  c.parser.feed("data: {}\n");
  EXPECT_TRUE(c.events.empty());
  c.parser.feed("\n");
  EXPECT_EQ(c.events.size(), 1u);
}

TEST(SseParser, CrLfAndLoneCrEndLinesEvenSplitAcrossReads) {
  Collected c;
  std::string stream = "data: one\r\n\r\ndata: two\r\rdata: three\n\n";
  for (char ch : stream) c.parser.feed(std::string_view(&ch, 1));
  ASSERT_EQ(c.events.size(), 3u);
  EXPECT_EQ(c.events[0].data, "one");
  EXPECT_EQ(c.events[1].data, "two");
  EXPECT_EQ(c.events[2].data, "three");
}

TEST(SseParser, CommentsUnknownFieldsAndALeadingBomAreIgnored) {
  Collected c;
  c.parser.feed("\xEF\xBB");
  c.parser.feed("\xBF: keep-alive\nfoo: bar\ndata\n\ndata:x\n\n");
  ASSERT_EQ(c.events.size(), 2u);
  EXPECT_EQ(c.events[0].data, "");   // "data" alone is a data line with an empty value
  EXPECT_EQ(c.events[1].data, "x");  // no space after the colon: nothing to strip
}

TEST(SseParser, APrimingEventSetsTheIdAndRetryWithoutAMessage) {
  Collected c;
  c.parser.feed("id: event-1\nretry: 500\n\n");
  EXPECT_TRUE(c.events.empty());
  EXPECT_EQ(c.parser.last_event_id(), "event-1");
  ASSERT_TRUE(c.parser.retry_ms());
  EXPECT_EQ(*c.parser.retry_ms(), 500u);
}

TEST(SseParser, TheLastIdStaysForLaterEventsUntilTheServerResetsIt) {
  Collected c;
  c.parser.feed("id: 3\ndata: a\n\ndata: b\n\n");
  ASSERT_EQ(c.events.size(), 2u);
  EXPECT_EQ(c.events[1].id, "3");
  c.parser.feed("id\ndata: c\n\n");
  EXPECT_EQ(c.parser.last_event_id(), "");
}

TEST(SseParser, AnIdIsCommittedOnlyWhenItsEventEnds) {
  Collected c;
  c.parser.feed("id: 1\n\nid: 2\ndata: x\n");  // the stream drops here
  EXPECT_EQ(c.parser.last_event_id(), "1");
}

TEST(SseParser, ARetryThatIsNotDigitsIsIgnored) {
  Collected c;
  c.parser.feed("retry: 1000\n\nretry: soon\n\nretry: -5\n\nretry: 12a\n\n");
  EXPECT_EQ(*c.parser.retry_ms(), 1000u);
}

TEST(SseParser, AnIdHoldingNulIsIgnored) {
  Collected c;
  c.parser.feed(std::string("id: 1\n\nid: a\0b\n\n", 16));
  EXPECT_EQ(c.parser.last_event_id(), "1");
}

TEST(SseParser, AnOversizedEventIsDroppedOnceAndTheNextOneArrives) {
  Collected c(64);
  c.parser.feed("data: " + std::string(40, 'a') + "\n");
  c.parser.feed("data: " + std::string(40, 'b') + "\n\n");
  c.parser.feed("data: small\n\n");
  EXPECT_EQ(c.oversized, std::vector<size_t>{64});
  ASSERT_EQ(c.events.size(), 1u);
  EXPECT_EQ(c.events[0].data, "small");
}

TEST(SseParser, AnEndlessLineCostsAtMostTheCap) {
  Collected c(1024);
  c.parser.feed("data: ");
  for (int i = 0; i < 1000; ++i) c.parser.feed(std::string(1000, 'x'));
  EXPECT_LE(c.parser.buffered(), 2 * 1024u);
  EXPECT_EQ(c.oversized.size(), 1u);
  c.parser.feed("\n\ndata: after\n\n");
  ASSERT_EQ(c.events.size(), 1u);
  EXPECT_EQ(c.events[0].data, "after");
}

TEST(SseParser, AnEventExactlyAtTheCapIsKept) {
  Collected c(10);
  c.parser.feed("data: 0123456789\n\n");
  ASSERT_EQ(c.events.size(), 1u);
  EXPECT_TRUE(c.oversized.empty());
}

}  // namespace
}  // namespace toolhost::jsonrpc
