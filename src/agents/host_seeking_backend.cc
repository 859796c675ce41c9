#include "agents/host_seeking_backend.h"

#include "jsonrpc/stream_transport.h"
#include "mcp/call_outcome.h"

namespace toolhost::agents {
namespace {

// The host's call waits for the user's approval: the agent's own timeout ends it (and its
// notifications/cancelled reaches the host through cancel()), never one of ours.
constexpr uint64_t kCallTimeoutMs = 7 * 24 * 3600 * 1000ULL;

mcp::CallResult result_of(const mcp::CallOutcome& outcome) {
  return mcp::CallResult{outcome.text, outcome.status != mcp::CallOutcome::Status::kOk};
}

}  // namespace

HostSeekingBackend::HostSeekingBackend(uv_loop_t* loop, HeadlessBackend& local,
                                       FindHost find_host, std::string version, Log log)
    : loop_(loop),
      local_(local),
      find_host_(std::move(find_host)),
      version_(std::move(version)),
      log_(std::move(log)) {}

HostSeekingBackend::~HostSeekingBackend() = default;

void HostSeekingBackend::start(Call call, Sink sink) {
  retired_.clear();  // outside their callbacks now
  if (relaying()) return forward(std::move(call), std::move(sink));
  if (connecting_) {
    waiting_.push_back({std::move(call), std::move(sink)});
    return;
  }
  // Only a call that would be refused here is worth a look at the registry (a directory scan
  // and a connect per entry): reads and allow-listed commands run here as before.
  if (local_.approval_needed(call)) {
    if (std::optional<std::string> socket = find_host_()) {
      const std::string client = call.client;
      waiting_.push_back({std::move(call), std::move(sink)});
      return connect(*socket, client);
    }
  }
  local_.start(std::move(call), std::move(sink));
}

void HostSeekingBackend::connect(const std::string& socket, const std::string& client) {
  std::string error;
  auto transport = jsonrpc::StreamTransport::connect(loop_, socket, error);
  mcp::Client::Options options;
  options.name = client.empty() ? "agent" : client;  // the host names the agent's buffer so
  options.version = version_;
  options.call_timeout_ms = kCallTimeoutMs;
  mcp::Client::Events events;
  events.closed = [this](const std::string& reason) { host_closed(reason); };
  if (transport) {
    client_ = std::make_unique<mcp::Client>(loop_, std::move(transport), options, events);
    if (!client_->start(error)) client_.reset();
  }
  if (!client_) return connected("cannot reach the host at " + socket + ": " + error);
  connecting_ = true;
  client_->connect([this, socket](std::optional<std::string> failed) {
    if (!connecting_) return;  // the host closed first: host_closed() settled the calls
    connected(failed ? std::optional<std::string>(*failed + " (" + socket + ")") : std::nullopt);
    if (!failed) log_("relaying to the Neovim host at " + socket + " from now on");
  });
}

void HostSeekingBackend::connected(std::optional<std::string> error) {
  connecting_ = false;
  if (error) {
    log_("no Neovim host after all: " + *error);
    if (client_) retired_.push_back(std::move(client_));
  }
  std::deque<Waiting> waiting;
  waiting.swap(waiting_);
  for (Waiting& call : waiting) {
    if (relaying()) {
      forward(std::move(call.call), std::move(call.sink));
    } else {
      local_.start(std::move(call.call), std::move(call.sink));
    }
  }
}

void HostSeekingBackend::forward(Call call, Sink sink) {
  const uint64_t id = call.id;
  mcp::Client::CallEvents events;
  if (sink.output) {
    // The host's progress message holds the last lines of output, as the agent reads them.
    events.progress = [output = sink.output](const mcp::Progress& progress) {
      if (!progress.message.empty()) output(progress.message);
    };
  }
  events.done = [this, id, done = std::move(sink.done)](mcp::CallOutcome outcome) {
    if (forwarded_.erase(id) == 0) return;  // canceled: the agent reads no answer any more
    done(result_of(outcome));
  };
  forwarded_[id] = 0;
  const uint64_t at_host = client_->call_tool(call.tool, std::move(call.arguments), std::move(events));
  if (auto it = forwarded_.find(id); it != forwarded_.end()) it->second = at_host;
}

void HostSeekingBackend::cancel(uint64_t id, const std::string& reason) {
  if (auto it = forwarded_.find(id); it != forwarded_.end()) {
    const uint64_t at_host = it->second;
    forwarded_.erase(it);  // its done() is no longer read
    if (client_) client_->cancel(at_host, reason);
    return;
  }
  for (auto it = waiting_.begin(); it != waiting_.end(); ++it) {
    if (it->call.id == id) {
      waiting_.erase(it);
      return;
    }
  }
  local_.cancel(id, reason);
}

void HostSeekingBackend::host_closed(const std::string& reason) {
  // The client fails its calls at the host itself ("the client closed"): the agent reads that.
  log_("the Neovim host went away (" + reason + "): running calls here until one serves " +
       "the project again");
  if (client_) retired_.push_back(std::move(client_));
  if (connecting_) connected(reason);
}

}  // namespace toolhost::agents
