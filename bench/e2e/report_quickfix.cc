// The report's rows of P11 (issue #39): a gcc log through :ToolRun into the quickfix list.
#include "report_rows.h"

namespace toolhost::bench {

using nlohmann::json;

// Judged by P1's method: Neovim's answers to the independent client while the job streams and
// its items are applied, against the machine's floor under the same log piped into cat, and a
// frame. The items must all be in the list when it is marked done (the capped count and the
// "truncated" item).
void p11_rows(const json& f, std::vector<Row>& r) {
  if (!f.contains("p11")) return;
  auto n = [&](const std::string& p) { return num(f, p); };
  auto triple = [&](const std::string& via) {
    const std::string base = "/p11/" + via + "/rtt_ms/";
    return fmt(n(base + "p50")) + " / " + fmt(n(base + "p99")) + " / " + fmt(n(base + "max"));
  };
  const double th99 = n("/p11/toolhost/rtt_ms/p99"), floor99 = n("/p11/floor/rtt_ms/p99"),
               th_max = n("/p11/toolhost/rtt_ms/max");
  r.push_back({"P11 nvim_eval round trip while :ToolRun's job prints a " +
                   fmt(n("/p11/lines"), 0) + "-line gcc log over " + fmt(n("/p11/files"), 0) +
                   " files into its quickfix list and diagnostics, p50 / p99 / max (ms), " +
                   fmt(n("/p11/rounds"), 0) + " rounds pooled",
               triple("toolhost"), "", "floor " + triple("floor") + " (the log \\| cat)",
               "p99 " + fmt(th99 / floor99) + "× the floor; max " + fmt(th_max) + " ms",
               "max ≤ 16 ms", yes(th_max <= 16)});
  const double items = n("/p11/toolhost/items"), size = n("/p11/toolhost/list_size");
  r.push_back({"P11 the job's exit → its list complete in Neovim, p50 / max (ms); from "
               "ToolhostJobFinished: p50 " +
                   fmt(n("/p11/toolhost/finished_to_list_ms/p50")),
               fmt(n("/p11/toolhost/exit_to_list_ms/p50")) + " / " +
                   fmt(n("/p11/toolhost/exit_to_list_ms/max")),
               "", "",
               fmt(size, 0) + " items in the list (" + fmt(n("/p11/toolhost/diagnostics"), 0) +
                   " diagnostics)",
               "every capped item in the list", yes(items > 0 && size == items)});
}

}  // namespace toolhost::bench
