// The report's rows of P8 and P9 (SPEC 13.6), judged as SPEC 12's 2026-12-02 revision says.
#include "report_rows.h"

namespace toolhost::bench {

using nlohmann::json;

// P8: server-everything's echo from a chat buffer, against the TypeScript SDK's client calling
// its own server in the same run. A chat's call is two hops (Neovim → host → server) and a
// rewrite against the SDK's one hop (bench/NOTES-mcp.md), so a call is judged in two parts:
// the host's own MCP hop against the SDK's whole call, and :ToolRun → result written against
// a millisecond.
void p8_rows(const json& f, std::vector<Row>& r) {
  auto n = [&](const std::string& p) { return num(f, p); };
  if (f.contains(json::json_pointer("/p8/skipped"))) {
    r.push_back({"P8 MCP echo through toolhost vs the TypeScript SDK",
                 "skipped: " + f.at(json::json_pointer("/p8/skipped")).get<std::string>(), "", "",
                 "", "", ""});
    return;
  }
  if (!f.contains("p8")) return;
  const double th = n("/p8/toolhost/sequential_ms/p50"), sdk = n("/p8/sdk/sequential_ms/p50");
  const std::string sdk_call = fmt(sdk, 3) + " / " + fmt(n("/p8/sdk/sequential_ms/p99"), 3) +
                               " (TypeScript SDK client, own server: one hop)";
  r.push_back({"P8 server-everything's echo, :ToolRun → result written in the chat, " +
                   fmt(n("/p8/calls"), 0) + " calls one by one in chats of 10, p50 / p99 (ms)",
               fmt(th, 3) + " / " + fmt(n("/p8/toolhost/sequential_ms/p99"), 3), "", sdk_call,
               fmt(th / sdk) + "× the SDK's p50 (two hops and a rewrite)", "p50 ≤ 1 ms",
               yes(th <= 1)});
  const double hop = n("/p8/toolhost/mcp_hop_ms/p50");
  r.push_back(
      {"P8 the same calls' MCP hop inside the host (the job's duration: request written "
       "→ answer read), p50 / p99 (ms)",
       fmt(hop, 3) + " / " + fmt(n("/p8/toolhost/mcp_hop_ms/p99"), 3), "",
       fmt(sdk, 3) + " (the SDK's whole call)", fmt(hop / sdk) + "× the SDK's p50",
       "p50 ≤ the SDK's whole call's", yes(hop <= sdk)});
  const double queued = n("/p8/queued"), th_all = n("/p8/toolhost/queued_ms"),
               sdk_all = n("/p8/sdk/queued_ms"), overhead = (th_all - sdk_all) / queued;
  r.push_back(
      {"P8 " + fmt(queued, 0) + " echo calls queued at once (:ToolRunAll), all written (ms)",
       fmt(th_all, 1) + " (host CPU " + fmt(n("/p8/toolhost/queued_host_cpu_ms") / queued, 3) +
           " ms/call)",
       "", fmt(sdk_all, 1) + " (the SDK, all at once)",
       (overhead >= 0 ? "+" : "") + fmt(overhead, 3) + " ms/call", "host overhead ≤ 0.5 ms/call",
       yes(overhead <= 0.5)});
  const double tools_max = n("/p8/cache/tools_after_ready_ms/max");
  r.push_back(
      {"P8 a fresh host's MCP tools from the warm cache, after it is ready, p50 / max "
       "(ms), " +
           fmt(n("/p8/cache/tools_after_ready_ms/n"), 0) + " hosts",
       fmt(n("/p8/cache/tools_after_ready_ms/p50"), 3) + " / " + fmt(tools_max, 3) +
           " (ready after " + fmt(n("/p8/cache/ready_ms/p50"), 1) + ")",
       "", "", "", "≤ 10", yes(tools_max <= 10)});
}

// P9: an agent's call through `toolhost mcp serve` relayed to Neovim's host against the same
// call answered headless; Neovim's RPC while agents stream, by P1's rule: against the
// machine's floor under the same load (each agent's `cat` piped into `cat`, neither toolhost
// nor Neovim involved, for as long as the agents streamed), and a frame. Idle is shown, not
// judged: on a loaded machine the load alone moves the p99 past 2× idle (bench/NOTES-mcp.md).
void p9_rows(const json& f, std::vector<Row>& r) {
  auto n = [&](const std::string& p) { return num(f, p); };
  if (!f.contains("p9")) return;
  const double p9 = n("/p9/relayed/p50"), p9_alone = n("/p9/headless/p50");
  r.push_back({"P9 an agent's read_file through toolhost mcp serve, p50 / p99 (ms)",
               fmt(p9, 3) + " / " + fmt(n("/p9/relayed/p99"), 3) + " (Neovim attached)", "",
               fmt(p9_alone, 3) + " / " + fmt(n("/p9/headless/p99"), 3) + " (headless)",
               fmt(p9 / p9_alone) + "×", "p50 ≤ 2× headless", yes(p9 <= 2 * p9_alone)});
  auto triple = [&](const std::string& which) {
    const std::string base = "/p9/rpc_" + which + "_ms/";
    return fmt(n(base + "p50"), 3) + " / " + fmt(n(base + "p99"), 3) + " / " +
           fmt(n(base + "max"), 3);
  };
  const double busy99 = n("/p9/rpc_streaming_ms/p99"), busy_max = n("/p9/rpc_streaming_ms/max"),
               floor99 = n("/p9/rpc_floor_ms/p99"), idle99 = n("/p9/rpc_idle_ms/p99");
  r.push_back({"P9 Neovim's RPC round trip while 2 agents stream output, p50 / p99 / max (ms), " +
                   fmt(n("/p9/rounds"), 0) + " rounds pooled (" +
                   fmt(n("/p9/rpc_streaming_ms/n"), 0) + " probes); idle: " + triple("idle"),
               triple("streaming") + " (" + fmt(n("/p9/progress_notifications"), 0) +
                   " progress notifications)",
               "",
               "floor " + triple("floor") + " (the same cats \\| cat, no toolhost or Neovim work)",
               "p99 " + fmt(busy99 / floor99) + "× the floor; max " + fmt(busy_max) + " ms; " +
                   fmt(busy99 / idle99) + "× idle",
               "p99 ≤ 2× the floor; max ≤ 16 ms",
               yes(busy99 <= 2 * floor99) + " / " + yes(busy_max <= 16)});
}

}  // namespace toolhost::bench
