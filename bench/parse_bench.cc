// P4 (SPEC 9): full parse of a 100k-line buffer with 5k calls (target <= 20 ms) and the
// re-parse after a one-line edit (target <= 0.2 ms). P8: an agent's call at the end of a chat of
// N calls, half of them identical, must not cost more as N grows.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "core/tool_table.h"
#include "parse/incremental.h"
#include "parse/parser.h"

namespace {

using namespace toolhost;

// 2,500 exchanges of 40 lines: a user message, then an assistant message with two calls in
// rotating dialects (one finished with its result block) and some prose.
std::vector<std::string> generated_buffer() {
  std::vector<std::string> lines;
  lines.reserve(100000);
  for (int i = 0; lines.size() < 100000; ++i) {
    std::string n = std::to_string(i);
    const std::vector<std::string> exchange = {
        "USER: please look at file " + n,
        "and tell me what is wrong with it",
        "",
        "ASSISTANT: Let me check.",
        "",
        "Some explanation of what I am about to do, long enough to look like prose.",
        "",
        "**bash**",
        "```bash",
        "make -C src target" + n,
        "```",
        "> build target " + n,
        "",
        i % 3 == 0 ? "```json" : "```xml",
        i % 3 == 0 ? "{\"tool\": \"read_file\", \"parameters\": {\"path\": \"src/" + n + ".c\"}}"
                   : "<tool><name>read_file</name><parameters><path>src/" + n +
                         ".c</path></parameters></tool>",
        "```",
        "````result id=th-" + n + " tool=read_file status=succeeded duration=0.01s",
        "1: int main() {",
        "2:   return 0;",
        "3: }",
        "````",
        "",
        "More prose after the calls, with a code sample:",
        "```c",
        "int x = " + n + ";",
        "```",
        "",
        "and a closing remark.",
    };
    lines.insert(lines.end(), exchange.begin(), exchange.end());
    for (int pad = 0; pad < 12; ++pad) lines.push_back("filler line " + std::to_string(pad));
  }
  lines.resize(100000);
  return lines;
}

parse::Options bench_options() {
  parse::Options options;
  options.tools = core::builtin_tool_table();
  return options;
}

void BM_FullParse(benchmark::State& state) {
  const auto lines = generated_buffer();
  const auto options = bench_options();
  size_t calls = 0;
  for (auto _ : state) {
    parse::ParseResult result = parse::parse(lines, options);
    calls = result.calls.size();
    benchmark::DoNotOptimize(result);
  }
  state.counters["lines"] = static_cast<double>(lines.size());
  state.counters["calls"] = static_cast<double>(calls);
}
BENCHMARK(BM_FullParse)->Unit(benchmark::kMillisecond);

// Typing in the middle of the buffer: one prose line of an assistant message changes.
void BM_OneLineEdit(benchmark::State& state) {
  parse::IncrementalParser parser(bench_options());
  parser.reset(generated_buffer());
  const int row = 50000 + 5;  // prose in an assistant message
  int i = 0;
  for (auto _ : state) {
    parse::ParseDelta delta = parser.apply(row, row + 1, {"edited prose " + std::to_string(++i)});
    benchmark::DoNotOptimize(delta);
  }
  state.counters["calls"] = static_cast<double>(parser.result().calls.size());
}
BENCHMARK(BM_OneLineEdit)->Unit(benchmark::kMicrosecond);

// Editing a call's command: the call is replaced (removed + added) and ids are renumbered.
void BM_OneLineEditInCall(benchmark::State& state) {
  parse::IncrementalParser parser(bench_options());
  parser.reset(generated_buffer());
  const int row = 50000 + 9;  // the command line of a **bash** block
  int i = 0;
  for (auto _ : state) {
    parse::ParseDelta delta = parser.apply(row, row + 1, {"make edited" + std::to_string(++i % 2)});
    benchmark::DoNotOptimize(delta);
  }
}
BENCHMARK(BM_OneLineEditInCall)->Unit(benchmark::kMicrosecond);

// A chat of `calls` finished calls, one per exchange; every other one (the last included) is
// the same read_file, the others each read their own file.
std::vector<std::string> chat_of(int calls) {
  std::vector<std::string> lines = {"MODEL: m"};
  for (int i = 0; i < calls; ++i) {
    const bool identical = (calls - 1 - i) % 2 == 0;
    const std::string path = identical ? "same.c" : "src/" + std::to_string(i) + ".c";
    const std::vector<std::string> exchange = {
        "USER: go on",
        "ASSISTANT: reading",
        "```json",
        "{\"tool\": \"read_file\", \"parameters\": {\"path\": \"" + path + "\"}}",
        "```",
        "````result id=th-" + std::to_string(i) + " tool=read_file status=succeeded",
        "text",
        "````",
        "",
    };
    lines.insert(lines.end(), exchange.begin(), exchange.end());
  }
  return lines;
}

// An agent's call: its block is appended (an identical call), then taken away again so that
// every iteration sees the same chat. Two edits per iteration.
void BM_AppendIdenticalBlock(benchmark::State& state) {
  parse::IncrementalParser parser(bench_options());
  parser.reset(chat_of(static_cast<int>(state.range(0))));
  const std::vector<std::string> block = {
      "ASSISTANT: reading",
      "```json",
      "{\"tool\": \"read_file\", \"parameters\": {\"path\": \"same.c\"}}",
      "```",
  };
  const int end = static_cast<int>(parser.lines().size());
  const int block_rows = static_cast<int>(block.size());
  for (auto _ : state) {
    parse::ParseDelta added = parser.apply(end, end, block);
    parse::ParseDelta removed = parser.apply(end, end + block_rows, {});
    benchmark::DoNotOptimize(added);
    benchmark::DoNotOptimize(removed);
  }
  state.counters["calls"] = static_cast<double>(parser.result().calls.size());
}
BENCHMARK(BM_AppendIdenticalBlock)->Arg(200)->Arg(2000)->Unit(benchmark::kMicrosecond);

// The result of the chat's last call (an identical one) is rewritten: running, then finished.
// Two edits per iteration.
void BM_RewriteLastResult(benchmark::State& state) {
  parse::IncrementalParser parser(bench_options());
  parser.reset(chat_of(static_cast<int>(state.range(0))));
  const int result_row = static_cast<int>(parser.lines().size()) - 4;
  const std::vector<std::string> running = {"````result id=th-x tool=read_file status=running",
                                            "````"};
  const std::vector<std::string> finished = {"````result id=th-x tool=read_file status=succeeded",
                                             "text", "````"};
  for (auto _ : state) {
    parse::ParseDelta started = parser.apply(result_row, result_row + 3, running);
    parse::ParseDelta ended = parser.apply(result_row, result_row + 2, finished);
    benchmark::DoNotOptimize(started);
    benchmark::DoNotOptimize(ended);
  }
  state.counters["calls"] = static_cast<double>(parser.result().calls.size());
}
BENCHMARK(BM_RewriteLastResult)->Arg(200)->Arg(2000)->Unit(benchmark::kMicrosecond);

}  // namespace
