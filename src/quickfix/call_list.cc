#include "quickfix/call_list.h"

#include <cstring>

#include "quickfix/worker_lua.h"

namespace toolhost::quickfix {

CallList::CallList(Worker& worker, CallListSpec spec, OnItems on_items, OnFailed on_failed)
    : worker_(worker),
      spec_(std::move(spec)),
      on_items_(std::move(on_items)),
      on_failed_(std::move(on_failed)),
      caps_(spec_.max_items, spec_.max_files) {
  // Lines no pattern takes are dropped in the worker: kept, each would be an invalid item to
  // read back and skip.
  if (!spec_.format.efm.empty()) efm_ = spec_.format.efm + ",%-G%.%#";
}

void CallList::output(int stream, std::string_view data) {
  if (done_ || finishing_) return;
  std::string& partial = partial_[stream == 1 ? 1 : 0];
  while (!data.empty()) {
    const char* newline = static_cast<const char*>(std::memchr(data.data(), '\n', data.size()));
    const size_t take = newline ? static_cast<size_t>(newline - data.data()) : data.size();
    if (partial.size() < kMaxLineBytes) {
      partial.append(data.substr(0, std::min(take, kMaxLineBytes - partial.size())));
    }
    if (!newline) break;
    take_line(std::move(partial));
    partial.clear();
    data.remove_prefix(take + 1);
  }
  pump();
}

void CallList::take_line(std::string line) {
  if (done_) return;
  if (!line.empty() && line.back() == '\r') line.pop_back();
  pending_bytes_ += line.size() + 1;
  pending_.push_back(std::move(line));
  if (pending_bytes_ > kMaxPendingBytes && !caps_.truncated()) {
    // The worker cannot keep up: the list ends here and the full log has the rest.
    caps_.truncate();
    pending_.clear();
    pending_bytes_ = 0;
    end({});
  }
}

void CallList::finish() {
  if (done_ || finishing_) return;
  for (std::string& partial : partial_) {
    if (!partial.empty()) take_line(std::move(partial));
    partial.clear();
  }
  finishing_ = true;
  pump();
}

void CallList::pump(bool force) {
  if (done_ || in_flight_ || opening_) return;
  if (list_id_ != 0 && !finishing_ && !force && pending_.size() < kChunkLines) return;
  auto alive = std::weak_ptr<bool>(alive_);
  if (list_id_ == 0) {
    if (pending_.empty() && !finishing_) return;  // no list for a job that writes nothing yet
    opening_ = true;
    worker_.exec_lua(worker_lua::kOpen, nlohmann::json::array({spec_.title, spec_.format.compiler}),
                     [this, alive](const std::string& error, nlohmann::json result) {
                       if (alive.lock()) opened(error, result);
                     });
    return;
  }
  if (pending_.empty() && !finishing_) return;
  std::vector<std::string> chunk;
  if (pending_.size() <= kChunkLines) {
    chunk.swap(pending_);
    pending_bytes_ = 0;
  } else {
    chunk.assign(std::make_move_iterator(pending_.begin()),
                 std::make_move_iterator(pending_.begin() + kChunkLines));
    pending_.erase(pending_.begin(), pending_.begin() + kChunkLines);
    for (const auto& line : chunk) pending_bytes_ -= line.size() + 1;
  }
  const bool final = finishing_ && pending_.empty();
  in_flight_ = true;
  worker_.exec_lua(worker_lua::kAppend,
                   nlohmann::json::array({list_id_, spec_.cwd, efm_, chunk, next_, final}),
                   [this, alive, final](const std::string& error, nlohmann::json result) {
                     if (alive.lock()) appended(error, result, final);
                   });
}

void CallList::opened(const std::string& error, const nlohmann::json& result) {
  opening_ = false;
  if (!error.empty() || !result.is_object() || !result.value("id", nlohmann::json()).is_number()) {
    return fail(error.empty() ? "the errorformat worker made no list" : error);
  }
  list_id_ = result["id"].get<int64_t>();
  if (efm_.empty()) {
    const auto efm = result.value("efm", nlohmann::json());
    if (!efm.is_string())
      return fail(":compiler " + spec_.format.compiler + " gave no errorformat");
    efm_ = efm.get<std::string>() + ",%-G%.%#";
  }
  on_items_({}, false);  // the list exists: the editor makes its own
  pump();
}

void CallList::appended(const std::string& error, const nlohmann::json& result, bool final) {
  in_flight_ = false;
  if (done_) return;
  if (!error.empty() || !result.is_object()) return fail(error.empty() ? "no answer" : error);
  if (result.value("evicted", false)) {
    // More lists than the worker's stack holds were being parsed at once.
    return fail("its list left the errorformat worker's stack (over 10 lists at once)");
  }
  next_ = result.value("next", next_);
  std::vector<nlohmann::json> items;
  for (auto& item : result.value("items", nlohmann::json::array())) {
    if (!caps_.admit(item.value("filename", std::string()))) {
      items.push_back({{"text", truncated_text(spec_.log_path)}, {"valid", 0}});
      return end(std::move(items));
    }
    items.push_back(std::move(item));
  }
  if (final) return end(std::move(items));
  if (!items.empty()) on_items_(std::move(items), false);
  pump();
}

void CallList::end(std::vector<nlohmann::json> items) {
  done_ = true;
  if (caps_.truncated() && items.empty()) {
    items.push_back({{"text", truncated_text(spec_.log_path)}, {"valid", 0}});
  }
  pending_.clear();
  on_items_(std::move(items), true);
}

void CallList::fail(const std::string& error) {
  if (done_) return;
  done_ = true;
  pending_.clear();
  on_failed_(error);
  on_items_({}, true);
}

}  // namespace toolhost::quickfix
