#pragma once
// `toolhost mcp serve` started before the Neovim that serves its project (SPEC 13.5): the calls
// run here (HeadlessBackend) until a Neovim host appears. A call that needs approval looks for
// one again before it is refused; once found, this call and every later one go to that host as
// an MCP client of it (the host makes them blocks of the agent's buffer, as for a relayed
// agent). When that host goes away, the calls run here again and the next one that needs
// approval looks again: an agent session outlives the Neovims beside it.

#include <uv.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "agents/headless_backend.h"
#include "mcp/client.h"
#include "mcp/server.h"

namespace toolhost::agents {

class HostSeekingBackend : public mcp::ToolBackend {
 public:
  // The socket of the host that serves the project now, if any (looked for on each call).
  using FindHost = std::function<std::optional<std::string>()>;
  using Log = std::function<void(const std::string& message)>;

  HostSeekingBackend(uv_loop_t* loop, HeadlessBackend& local, FindHost find_host,
                     std::string version, Log log);
  ~HostSeekingBackend() override;
  HostSeekingBackend(const HostSeekingBackend&) = delete;
  HostSeekingBackend& operator=(const HostSeekingBackend&) = delete;

  std::vector<mcp::Tool> tools() override { return local_.tools(); }
  void start(Call call, Sink sink) override;
  void cancel(uint64_t id, const std::string& reason) override;

  // Whether the calls go to a Neovim host now (for tests and the log).
  bool relaying() const { return client_ && client_->connected() && client_->is_open(); }

 private:
  struct Waiting {
    Call call;
    Sink sink;
  };

  // Connects to `socket` as the agent `client`; the calls in waiting_ go there once the
  // handshake is done, or run here when it fails.
  void connect(const std::string& socket, const std::string& client);
  void connected(std::optional<std::string> error);
  void forward(Call call, Sink sink);
  void host_closed(const std::string& reason);

  uv_loop_t* loop_;
  HeadlessBackend& local_;
  FindHost find_host_;
  std::string version_;
  Log log_;
  std::unique_ptr<mcp::Client> client_;
  bool connecting_ = false;
  std::deque<Waiting> waiting_;  // calls that came while the handshake ran
  // The agent's call number -> the client's, for calls at the host.
  std::map<uint64_t, uint64_t> forwarded_;
  // Clients whose host went away, destroyed with the next call (never in their own callback).
  std::vector<std::unique_ptr<mcp::Client>> retired_;
};

}  // namespace toolhost::agents
