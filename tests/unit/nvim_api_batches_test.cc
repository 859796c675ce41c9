// nvim::Api::exec_lua_batched: one list of feedback batches in flight at a time; what comes
// meanwhile leaves as one list when Neovim answers, and no other call overtakes a batch.
#include "nvim/api.h"
#include "rpc_peer_fixture.h"

namespace toolhost::rpc {
namespace {

using NvimApiBatches = RpcPeer;

// The test plays Neovim on the raw end: the nvim_exec_lua requests it received, in order.
std::vector<const Message*> requests(const RawEnd& raw) {
  std::vector<const Message*> out;
  for (const Message& m : raw.received()) {
    if (m.type == MessageType::Request) out.push_back(&m);
  }
  return out;
}

json args_of(const Message& m) {
  return to_json(m.params)[1];
}

TEST_F(NvimApiBatches, BatchesSentWhileOneIsAppliedLeaveTogetherAfterIt) {
  open_server_raw();
  nvim::Api api(*server_);
  int answers = 0;
  auto done = [&](const std::string& error, const json&) {
    EXPECT_EQ(error, "");
    ++answers;
  };
  api.exec_lua_batched("apply_all(...)", {{"n", 1}}, done);
  api.exec_lua_batched("apply_all(...)", {{"n", 2}}, done);
  api.exec_lua_batched("apply_all(...)", {{"n", 3}}, done);
  ASSERT_TRUE(run_until([&] { return requests(*raw_).size() == 1; }));
  EXPECT_EQ(to_json(requests(*raw_)[0]->params)[0], "apply_all(...)");
  EXPECT_EQ(args_of(*requests(*raw_)[0]), json::array({json::array({{{"n", 1}}})}));

  // Neovim answers the first list: the two that waited leave as one.
  raw_->write(encode_response(requests(*raw_)[0]->id, nullptr, json::object()));
  ASSERT_TRUE(run_until([&] { return requests(*raw_).size() == 2; }));
  EXPECT_EQ(args_of(*requests(*raw_)[1]), json::array({json::array({{{"n", 2}}, {{"n", 3}}})}));
  raw_->write(encode_response(requests(*raw_)[1]->id, nullptr, json::object()));
  ASSERT_TRUE(run_until([&] { return answers == 2; }));

  // Nothing in flight: the next batch leaves at once.
  api.exec_lua_batched("apply_all(...)", {{"n", 4}}, done);
  ASSERT_TRUE(run_until([&] { return requests(*raw_).size() == 3; }));
  EXPECT_EQ(args_of(*requests(*raw_)[2]), json::array({json::array({{{"n", 4}}})}));
}

// Lua applies a big list in slices: it answers {pending = true} at once, and notifies the
// result when the last slice is done. Until then the list stays in flight.
TEST_F(NvimApiBatches, ListAnsweredPendingStaysInFlightUntilItsResultIsNotified) {
  open_server_raw();
  nvim::Api api(*server_);
  std::vector<json> results;
  auto done = [&](const std::string& error, const json& result) {
    EXPECT_EQ(error, "");
    results.push_back(result);
  };
  bool after_answer = false;  // a notification Neovim sends after its answer: it was read
  api.on_detach([&](int64_t) { after_answer = true; });
  api.exec_lua_batched("apply_all(...)", {{"n", 1}}, done);
  api.exec_lua_batched("apply_all(...)", {{"n", 2}}, done);
  ASSERT_TRUE(run_until([&] { return requests(*raw_).size() == 1; }));
  raw_->write(encode_response(requests(*raw_)[0]->id, nullptr, {{"pending", true}}) +
              encode_notification("nvim_buf_detach_event", json::array({1})));
  ASSERT_TRUE(run_until([&] { return after_answer; }));
  // The answer came, the list is still being applied: the next one waits, no result yet.
  EXPECT_EQ(requests(*raw_).size(), 1u);
  EXPECT_TRUE(results.empty());

  api.batches_applied({{"edits", json::array({{{"status", "applied"}}})}});
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0]["edits"][0]["status"], "applied");
  ASSERT_TRUE(run_until([&] { return requests(*raw_).size() == 2; }));
  EXPECT_EQ(args_of(*requests(*raw_)[1]), json::array({json::array({{{"n", 2}}})}));

  // A result nobody waits for (a list of the host this one replaced) changes nothing.
  api.batches_applied(json::object());
  EXPECT_EQ(results.size(), 1u);
  raw_->write(encode_response(requests(*raw_)[1]->id, nullptr, {{"edits", json::array()}}));
  ASSERT_TRUE(run_until([&] { return results.size() == 2; }));
}

TEST_F(NvimApiBatches, OtherCallsDoNotOvertakeAWaitingBatch) {
  open_server_raw();
  nvim::Api api(*server_);
  api.exec_lua_batched("apply_all(...)", {{"n", 1}}, nullptr);
  api.exec_lua_batched("apply_all(...)", {{"n", 2}}, nullptr);  // waits for the first answer
  api.exec_lua("resolve(...)", json::array({7}), nullptr);
  ASSERT_TRUE(run_until([&] { return requests(*raw_).size() == 3; }));
  auto sent = requests(*raw_);
  EXPECT_EQ(args_of(*sent[0]), json::array({json::array({{{"n", 1}}})}));
  EXPECT_EQ(args_of(*sent[1]), json::array({json::array({{{"n", 2}}})}));
  EXPECT_EQ(to_json(sent[2]->params)[0], "resolve(...)");
}

}  // namespace
}  // namespace toolhost::rpc
