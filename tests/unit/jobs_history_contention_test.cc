// Job history shared by several hosts (SPEC 6) under contention: two real processes appending
// and trimming the same file at once lose no line and tear none. Processes synchronise
// through pipes.

#include <map>
#include <set>

#include "jobs/history.h"
#include "test_history_processes.h"

namespace toolhost::jobs::testing {
namespace {

using nlohmann::json;

// One host of the stress test: `jobs` jobs, each a queued line from allocate() and an ended
// line from append(), a trim every 50 jobs (every other one a waiting trim), the loop run
// without waiting between jobs. Reports its ids, what its trims dropped and how long each kind
// of call blocked, as JSON on `report`.
int stress_host(const std::string& state, const Pipe& go, const Pipe& done, const Pipe& report,
                int jobs) {
  uv_loop_t loop;
  uv_loop_init(&loop);
  json out = {{"ids", json::array()}, {"dropped", json::array()}};
  BlockMeter meter;
  {
    History history(&loop, state);
    if (!go.wait_byte()) return 2;
    auto dropped = [&](const json& record) {
      out["dropped"].push_back({{"id", record["id"]},
                                {"queued", record.contains("q")},
                                {"ended", record.contains("e")}});
    };
    for (int i = 0; i < jobs; ++i) {
      uint64_t number = 0;
      // Every 97th queued line spans many pages, as a file write's parameters do.
      std::string pad(i % 97 == 0 ? 64 * 1024 : 16 + i % 200, 'p');
      meter.time("allocate", [&] {
        number = history.allocate([&](uint64_t n) {
          return json{{"ev", "queued"}, {"id", job_id(n)}, {"q", i}, {"pad", pad}};
        });
      });
      out["ids"].push_back(number);
      meter.time("append", [&] {
        history.append({{"ev", "ended"}, {"id", job_id(number)}, {"e", true}});
      });
      if (i % 50 == 49) meter.time("trim", [&] { history.trim(200, dropped, i % 100 == 99); });
      uv_run(&loop, UV_RUN_NOWAIT);
    }
    // Both close at once, after both are done: close() waits at most 400 ms for the lock, and
    // a peer still taking it in a tight loop (no real host does) could starve it.
    if (!done.send("d") || !go.wait_byte()) return 5;
    meter.time("close", [&] { history.close(); });
  }
  uv_run(&loop, UV_RUN_DEFAULT);
  if (uv_loop_close(&loop) != 0) return 3;
  out["longest_us"] = meter.longest_us;
  std::string text = out.dump();
  return report.send(text) ? 0 : 4;
}

TEST(JobsHistoryContention, TwoHostsAppendingAndTrimmingAtOnceLoseAndTearNothing) {
  TempDir dir;
  const std::string state = dir / "state";
  constexpr int kJobs = 3000;
  Pipe go, done;
  Pipe reports[2];
  pid_t hosts[2];
  for (int h = 0; h < 2; ++h) {
    hosts[h] = fork_child([&, h] { return stress_host(state, go, done, reports[h], kJobs); });
    ASSERT_GT(hosts[h], 0);
    reports[h].close_write();
  }
  ASSERT_TRUE(go.send("gg"));  // both start together
  ASSERT_TRUE(done.wait_byte() && done.wait_byte());
  ASSERT_TRUE(go.send("cc"));  // both close together
  std::string texts[2] = {reports[0].read_all(), reports[1].read_all()};
  for (int h = 0; h < 2; ++h) ASSERT_EQ(wait_child(hosts[h]), 0) << "host " << h;

  std::set<uint64_t> ids;
  std::map<std::string, std::set<std::string>> seen;  // id → "queued" / "ended"
  size_t allocated = 0;
  for (int h = 0; h < 2; ++h) {
    json report = json::parse(texts[h]);
    for (uint64_t id : report["ids"]) {
      ++allocated;
      EXPECT_TRUE(ids.insert(id).second) << "th-" << id << " handed out twice";
    }
    for (const json& record : report["dropped"]) {
      if (record["queued"]) seen[record["id"]].insert("queued");
      if (record["ended"]) seen[record["id"]].insert("ended");
    }
    for (const auto& [what, us] : report["longest_us"].items()) {
      std::printf("host %d: longest %s %llu us\n", h, what.c_str(),
                  static_cast<unsigned long long>(us.get<uint64_t>()));
      ::testing::Test::RecordProperty("host" + std::to_string(h) + "_longest_" + what + "_us",
                                      std::to_string(us.get<uint64_t>()));
    }
  }
  EXPECT_EQ(allocated, 2u * kJobs);
  RawHistory raw = read_raw(state + "/history.jsonl");
  EXPECT_TRUE(raw.torn.empty()) << raw.torn.size() << " torn lines, first: " << raw.torn[0];
  for (const json& line : raw.lines) seen[line["id"]].insert(line["ev"]);
  size_t lost = 0;
  for (uint64_t id : ids) {
    const std::set<std::string>& evs = seen[job_id(id)];
    if (!evs.count("queued") || !evs.count("ended")) {
      if (++lost <= 5) ADD_FAILURE() << job_id(id) << " lost a line";
    }
  }
  EXPECT_EQ(lost, 0u);
  std::printf("%zu ids, %zu lines left in the file, %zu lost, %zu torn\n", ids.size(),
              raw.lines.size(), lost, raw.torn.size());
}

}  // namespace
}  // namespace toolhost::jobs::testing
