// server: the jobs.* methods and the method table answer bad arguments with an error reply.
#include "server/job_methods.h"

#include <gtest/gtest.h>

#include "server/methods.h"
#include "test_jobs.h"
#include "test_loop.h"

namespace toolhost::server {
namespace {

using nlohmann::json;

class JobMethods : public ::testing::Test {
 protected:
  ~JobMethods() override {
    bool done = false;
    engine_.shutdown(100, [&] { done = true; });
    loop_.run_until([&] { return done; });
  }

  // Runs `command` to its end; returns its job id.
  std::string run(const std::string& command) {
    jobs::JobSpec spec;
    spec.argv = {"sh", "-c", command};
    spec.tool = "run_terminal_command";
    bool finished = false;
    jobs::JobEvents events;
    events.finished = [&](const jobs::JobInfo&) { finished = true; };
    std::string id = engine_.submit(std::move(spec), std::move(events));
    EXPECT_TRUE(loop_.run_until([&] { return finished; }));
    return id;
  }

  testing::TestLoop loop_;
  jobs::testing::TempDir dir_;
  jobs::Engine engine_{loop_.get(), [&] {
                         jobs::EngineOptions options;
                         options.cache_dir = dir_.path();
                         return options;
                       }()};
};

TEST_F(JobMethods, ListGetOutputAndCancelAnswerTheirShapes) {
  std::string id = run("printf 'hello\\n'");
  auto list = jobs_list(engine_, json{{"status", "succeeded"}});
  ASSERT_TRUE(list) << list.error();
  EXPECT_EQ((*list)["total"], 1);
  EXPECT_EQ((*list)["jobs"][0]["id"], id);
  auto none = jobs_list(engine_, json{{"status", json::array({"failed", "rejected"})}});
  ASSERT_TRUE(none) << none.error();
  EXPECT_EQ((*none)["total"], 0);
  auto got = jobs_get(engine_, json{{"id", id}});
  ASSERT_TRUE(got) << got.error();
  EXPECT_EQ((*got)["status"], "succeeded");
  auto output = jobs_output(engine_, json{{"id", id}, {"since", 2}});
  ASSERT_TRUE(output) << output.error();
  EXPECT_EQ((*output)["data"], "llo\n");
  auto cancel = jobs_cancel(engine_, json{{"id", id}});
  ASSERT_TRUE(cancel) << cancel.error();
  EXPECT_EQ((*cancel)["canceled"], false);  // it has ended
}

TEST_F(JobMethods, BadArgumentsAreErrorsNotThrows) {
  struct Case {
    Reply reply;
    std::string error;
  };
  const Case cases[] = {
      {jobs_list(engine_, json{{"status", "sleeping"}}), "unknown status \"sleeping\""},
      {jobs_list(engine_, json{{"status", json::array({"queued", 3})}}), "unknown status 3"},
      {jobs_list(engine_, json{{"limit", -1}}), "`limit` must be a number >= 0"},
      {jobs_list(engine_, json{{"limit", "ten"}}), "`limit` must be a number >= 0"},
      {jobs_get(engine_, json::object()), "missing job id"},
      {jobs_get(engine_, json{{"id", 7}}), "missing job id"},
      {jobs_get(engine_, json{{"id", "th-424242"}}), "no job th-424242"},
      {jobs_output(engine_, json{{"id", "th-424242"}}), "no job th-424242"},
      {jobs_cancel(engine_, json::array({1})), "missing job id"},
  };
  for (const auto& c : cases) {
    ASSERT_FALSE(c.reply) << c.error;
    EXPECT_EQ(c.reply.error(), c.error);
  }
  std::string id = run("true");
  auto since = jobs_output(engine_, json{{"id", id}, {"since", "start"}});
  ASSERT_FALSE(since);
  EXPECT_EQ(since.error(), "`since` must be a number >= 0");
}

TEST(MethodTable, CallsTheNamedHandlerAndRefusesUnknownNames) {
  MethodTable table;
  table.add("echo", [](const json& args) -> MethodTable::Reply { return args; });
  auto echoed = table.call("echo", json{{"a", 1}});
  ASSERT_TRUE(echoed);
  EXPECT_EQ(*echoed, (json{{"a", 1}}));
  auto none = table.call("echo", json());
  ASSERT_TRUE(none);
  EXPECT_EQ(*none, json::object());  // no arguments: an empty table
  auto unknown = table.call("nope", json::object());
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error(), "unknown method nope");
  EXPECT_EQ(table.names(), std::vector<std::string>{"echo"});
}

}  // namespace
}  // namespace toolhost::server
