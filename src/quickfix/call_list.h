#pragma once
// One call's output parsed into its list in the errorformat worker, while the job streams:
// complete lines are appended a chunk at a time (one request in flight; what comes meanwhile
// waits and leaves as the next chunk), and the valid items each append completes come back
// through `on_items`, capped (item_caps.h). After finish(), the last partial lines go and the
// list is complete.

#include <cstddef>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "quickfix/format_choice.h"
#include "quickfix/item_caps.h"
#include "quickfix/worker.h"

namespace toolhost::quickfix {

struct CallListSpec {
  Format format;
  std::string title;
  std::string cwd;       // relative file names resolve here
  std::string log_path;  // named by the truncation item
  size_t max_items = 1000;
  size_t max_files = 300;
};

class CallList {
 public:
  // New items (qf item dicts, `filename` absolute); `done` once the list is complete (the job
  // ended and everything is parsed, or the caps were reached, or the worker failed). Called
  // first with none once the worker has made the list: never when it could not.
  using OnItems = std::function<void(std::vector<nlohmann::json> items, bool done)>;
  using OnFailed = std::function<void(const std::string& error)>;

  // Lines per append: Neovim parses 1,000 gcc lines in about 4 ms (QUICKFIX-NOTES).
  static constexpr size_t kChunkLines = 2000;
  // A line is cut here (Neovim keeps 4,071 bytes of an item's text anyway).
  static constexpr size_t kMaxLineBytes = 4096;
  // Bytes waiting for the worker at most; past it the list ends truncated (a job that writes
  // faster than Neovim parses, for long).
  static constexpr size_t kMaxPendingBytes = 32u << 20;

  CallList(Worker& worker, CallListSpec spec, OnItems on_items, OnFailed on_failed);
  CallList(const CallList&) = delete;
  CallList& operator=(const CallList&) = delete;

  // `stream`: 0 stdout, 1 stderr; each keeps its own partial line.
  void output(int stream, std::string_view data);
  // Sends the lines that wait, however few (the owner's timer, every kFlushMs): a chunk leaves
  // by itself only once it is full, since each append reads the list back whole.
  void flush() { pump(true); }
  static constexpr uint64_t kFlushMs = 100;
  void finish();
  bool done() const { return done_; }
  const ItemCaps& caps() const { return caps_; }

 private:
  void take_line(std::string line);
  void pump(bool force = false);
  void opened(const std::string& error, const nlohmann::json& result);
  void appended(const std::string& error, const nlohmann::json& result, bool final);
  void fail(const std::string& error);
  void end(std::vector<nlohmann::json> items);

  Worker& worker_;
  CallListSpec spec_;
  OnItems on_items_;
  OnFailed on_failed_;
  ItemCaps caps_;
  std::string partial_[2];
  std::vector<std::string> pending_;
  size_t pending_bytes_ = 0;
  std::string efm_;
  int64_t list_id_ = 0;  // 0 until the worker made the list
  int64_t next_ = 1;     // the first item not read back yet (1-based)
  bool opening_ = false;
  bool in_flight_ = false;
  bool finishing_ = false;
  bool done_ = false;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace toolhost::quickfix
