// The host's side of a server's question for the user (server::Elicitations): what Neovim is
// sent, how Lua's answer becomes the server's, the form checked before it leaves, one question
// at a time, and a question whose call ended meanwhile dropped. The Neovim side is a fake
// sender that records the questions.
#include "server/elicitations.h"

#include <gtest/gtest.h>

#include <optional>
#include <vector>

namespace toolhost::server {
namespace {

using Json = nlohmann::json;
using Action = mcp::ElicitationAnswer::Action;

mcp::ElicitationRequest form() {
  mcp::ElicitationRequest request;
  request.message = "Who are you?";
  request.requested_schema = Json::parse(R"({
    "type": "object",
    "properties": {
      "name": {"type": "string", "title": "Your name", "maxLength": 5},
      "age": {"type": "integer", "minimum": 0, "maximum": 150, "default": 30},
      "color": {"type": "string", "oneOf": [{"const": "r", "title": "Red"},
                                            {"const": "g", "title": "Green"}]}
    },
    "required": ["name"]
  })");
  return request;
}

class ElicitationsTest : public ::testing::Test {
 protected:
  // Asks `request` of server "srv"; its answer lands in answers_[index].
  size_t ask(mcp::ElicitationRequest request = form()) {
    answers_.emplace_back();
    size_t index = answers_.size() - 1;
    elicitations_.ask("srv", std::move(request),
                      [this, index](mcp::ElicitationAnswer answer) { answers_[index] = answer; });
    return index;
  }
  uint64_t last_id() const { return sent_.back()["id"].get<uint64_t>(); }

  std::vector<Json> sent_;
  std::vector<std::function<void()>> failed_;
  std::vector<std::optional<mcp::ElicitationAnswer>> answers_;
  Elicitations elicitations_{[this](const Json& question, std::function<void()> failed) {
    sent_.push_back(question);
    failed_.push_back(std::move(failed));
  }};
};

TEST_F(ElicitationsTest, NeovimGetsTheServerTheMessageAndEveryFieldWithWhetherItIsRequired) {
  ask();
  ASSERT_EQ(sent_.size(), 1u);
  const Json& question = sent_[0];
  EXPECT_EQ(question["server"], "srv");
  EXPECT_EQ(question["message"], "Who are you?");
  ASSERT_EQ(question["fields"].size(), 3u);
  Json age = question["fields"][0];
  EXPECT_EQ(age["name"], "age");
  EXPECT_EQ(age["default"], 30);
  EXPECT_EQ(age["required"], false);
  EXPECT_EQ(question["fields"][2]["name"], "name");
  EXPECT_EQ(question["fields"][2]["required"], true);
  EXPECT_EQ(question["fields"][2]["title"], "Your name");
}

TEST_F(ElicitationsTest, NeovimGetsTheFieldsInTheServersOrder) {
  mcp::ElicitationRequest unsorted = form();
  unsorted.field_order = {"name", "color", "age"};  // as parse_elicitation read the server's text
  ask(unsorted);
  ASSERT_EQ(sent_.size(), 1u);
  std::vector<std::string> names;
  for (const Json& field : sent_[0]["fields"]) names.push_back(field["name"]);
  EXPECT_EQ(names, std::vector<std::string>({"name", "color", "age"}));
}

TEST_F(ElicitationsTest, AnAcceptedFormReachesTheServerWithItsContent) {
  size_t first = ask();
  Json content = {{"name", "Ada"}, {"age", 36}, {"color", "g"}};
  ASSERT_TRUE(
      elicitations_.answered({{"id", last_id()}, {"action", "accept"}, {"content", content}}));
  ASSERT_TRUE(answers_[first]);
  EXPECT_EQ(answers_[first]->action, Action::kAccept);
  EXPECT_EQ(answers_[first]->content, content);
  EXPECT_EQ(elicitations_.pending(), 0u);
}

TEST_F(ElicitationsTest, DeclineCancelAndTheHeadlessDefaultsMapToTheirAnswers) {
  size_t declined = ask();
  ASSERT_TRUE(elicitations_.answered({{"id", last_id()}, {"action", "decline"}}));
  size_t canceled = ask();
  ASSERT_TRUE(elicitations_.answered({{"id", last_id()}, {"action", "cancel"}}));
  mcp::ElicitationRequest all_defaults = form();
  all_defaults.requested_schema["required"] = Json::array();
  size_t defaulted = ask(all_defaults);
  ASSERT_TRUE(elicitations_.answered({{"id", last_id()}, {"action", "defaults"}}));
  EXPECT_EQ(answers_[declined]->action, Action::kDecline);
  EXPECT_EQ(answers_[canceled]->action, Action::kCancel);
  EXPECT_EQ(answers_[defaulted]->action, Action::kAccept);
  EXPECT_EQ(answers_[defaulted]->content, Json({{"age", 30}}));
}

TEST_F(ElicitationsTest, ContentThatDoesNotFitTheFormIsRefusedAndTheServerToldCancel) {
  const Json bad[] = {
      Json{{"age", 3}},                          // the required name missing
      Json{{"name", "Ada"}, {"age", 151}},       // above the maximum
      Json{{"name", "Ada"}, {"age", "old"}},     // not an integer
      Json{{"name", "Ada"}, {"color", "blue"}},  // not one of the oneOf
      Json{{"name", "Adalbert"}},                // longer than maxLength
      Json{{"name", "Ada"}, {"shoe", 42}},       // not in the form
  };
  for (const Json& content : bad) {
    size_t index = ask();
    auto done =
        elicitations_.answered({{"id", last_id()}, {"action", "accept"}, {"content", content}});
    ASSERT_FALSE(done) << content;
    EXPECT_NE(done.error().find("does not fit its form"), std::string::npos) << done.error();
    ASSERT_TRUE(answers_[index]) << content;
    EXPECT_EQ(answers_[index]->action, Action::kCancel) << content;
  }
  auto malformed = elicitations_.answered({{"action", "accept"}});
  EXPECT_FALSE(malformed);
}

TEST_F(ElicitationsTest, OneQuestionAtATimeTheNextAskedWhenTheFirstIsAnswered) {
  size_t first = ask();
  size_t second = ask();
  ASSERT_EQ(sent_.size(), 1u) << "the second waits";
  EXPECT_EQ(elicitations_.pending(), 2u);
  ASSERT_TRUE(elicitations_.answered({{"id", last_id()}, {"action", "cancel"}}));
  EXPECT_TRUE(answers_[first]);
  ASSERT_EQ(sent_.size(), 2u);
  EXPECT_FALSE(answers_[second]);
  failed_[1]();  // Neovim could not ask it: canceled
  ASSERT_TRUE(answers_[second]);
  EXPECT_EQ(answers_[second]->action, Action::kCancel);
  EXPECT_EQ(elicitations_.pending(), 0u);
}

TEST_F(ElicitationsTest,
       AQuestionWhoseCallEndedMeanwhileIgnoresTheLateAnswerAndIsNotAskedIfQueued) {
  bool call_running = true;
  mcp::ElicitationRequest moot = form();
  moot.still_wanted = [&] { return call_running; };
  size_t asked = ask(moot);
  size_t queued = ask(moot);
  size_t other = ask();
  const uint64_t asked_id = last_id();
  call_running = false;  // canceled while the user is being asked
  ASSERT_TRUE(elicitations_.answered(
      {{"id", asked_id}, {"action", "accept"}, {"content", {{"name", "Ada"}}}}));
  EXPECT_EQ(answers_[asked]->action, Action::kCancel) << "the user's answer goes nowhere";
  EXPECT_EQ(answers_[queued]->action, Action::kCancel);
  ASSERT_EQ(sent_.size(), 2u) << "the queued one of the ended call was never asked";
  EXPECT_EQ(sent_[1]["id"].get<uint64_t>(), asked_id + 2);
  EXPECT_FALSE(answers_[other]);
  // A second answer to a question gone is ignored.
  EXPECT_TRUE(elicitations_.answered({{"id", asked_id}, {"action", "decline"}}));
  EXPECT_FALSE(answers_[other]);
  EXPECT_EQ(elicitations_.pending(), 1u);
}

TEST_F(ElicitationsTest, AQuestionBeingAskedEndsAsCanceledWhenItsCallEndsAndTheNextIsAsked) {
  bool call_running = true;
  std::function<void()> dropped;
  mcp::ElicitationRequest moot = form();
  moot.still_wanted = [&] { return call_running; };
  moot.on_dropped = [&](std::function<void()> hook) { dropped = std::move(hook); };
  size_t asked = ask(moot);
  size_t next = ask();
  const uint64_t asked_id = last_id();
  ASSERT_TRUE(dropped) << "the question being asked listens for its end";
  call_running = false;  // the call timed out; the user never answers
  dropped();
  ASSERT_TRUE(answers_[asked]);
  EXPECT_EQ(answers_[asked]->action, Action::kCancel);
  ASSERT_EQ(sent_.size(), 2u) << "the next question is not held up";
  EXPECT_EQ(sent_[1]["id"].get<uint64_t>(), asked_id + 1);
  EXPECT_TRUE(elicitations_.answered({{"id", asked_id}, {"action", "decline"}}));
  EXPECT_FALSE(answers_[next]) << "the late answer to the dropped one is ignored";
  dropped();  // a second signal changes nothing
  EXPECT_FALSE(answers_[next]);
  EXPECT_EQ(elicitations_.pending(), 1u);
}

}  // namespace
}  // namespace toolhost::server
