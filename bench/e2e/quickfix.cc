// P11 (issue #39): a job printing a gcc log through :ToolRun, its errors into the call's
// quickfix list and diagnostics, while the independent client's round trips are measured as in
// P1 (against the same log piped into cat: the machine's floor under that load).
#include <chrono>
#include <map>
#include <thread>

#include "bench.h"
#include "measure.h"

namespace toolhost::bench {

void Bench::p11_quickfix() {
  std::map<std::string, std::vector<double>> rtts;
  std::vector<double> exit_to_list, finished_to_list, seconds;
  json last;
  auto probed = [&](const std::string& label, uint64_t from, uint64_t to) {
    for (const auto& r : probe_->rtts(from, to)) rtts[label].push_back(r.ms);
  };
  const int rounds = o_.smoke ? 1 : 5;
  const std::string log_args =
      std::to_string(s_.p11_lines) + " " + std::to_string(s_.p11_files) + " ";
  for (int round = 0; round < rounds; ++round) {
    probe_->probing(true);
    uint64_t from = now_ns();
    wait_for_pid(spawn({"/bin/sh", "-c",
                        child_ + " gcclog " + log_args + dir_ + "/p11-floor | cat > /dev/null"}));
    probed("floor", from, now_ns());
    probe_->probing(false);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));

    probe_->probing(true);
    json report = scenario("quickfix_log", {{"name", "p11_" + std::to_string(round)},
                                            {"lines", s_.p11_lines},
                                            {"files", s_.p11_files},
                                            {"trace", o_.p1_trace}});
    probe_->probing(false);
    const uint64_t start = report["started_ns"].get<uint64_t>();
    const uint64_t end = start + static_cast<uint64_t>(report["seconds"].get<double>() * 1e9);
    probed("toolhost", start, end);
    if (o_.p1_trace) print_trace("p11", start, end, report);
    report.erase("trace");
    if (report.contains("exit_to_list_ms")) exit_to_list.push_back(report["exit_to_list_ms"]);
    if (report.contains("finished_to_list_ms")) {
      finished_to_list.push_back(report["finished_to_list_ms"]);
    }
    seconds.push_back(report["seconds"]);
    last = report;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  f_["p11"] = {{"lines", s_.p11_lines},
               {"files", s_.p11_files},
               {"rounds", rounds},
               {"floor", {{"rtt_ms", stats(rtts["floor"])}}},
               {"toolhost",
                {{"rtt_ms", stats(rtts["toolhost"])},
                 {"exit_to_list_ms", stats(exit_to_list)},
                 {"finished_to_list_ms", stats(finished_to_list)},
                 {"seconds", stats(seconds)},
                 {"items", last.value("items", 0)},
                 {"list_size", last.value("list_size", 0)},
                 {"diagnostics", last.value("diagnostics", 0)},
                 {"slices", last.value("slices", json::object())}}}};
}

}  // namespace toolhost::bench
