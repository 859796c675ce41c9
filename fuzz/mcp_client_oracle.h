#pragma once
// What mcp_client_fuzz expects of mcp::Client, written apart from it: every line the server
// side delivers, read by JSON-RPC 2.0's rules (not by jsonrpc::parse_message), every line the
// client writes, and every callback it makes. The transport and the harness report as things
// happen; each report checks what it can at once, so a failure traps with the stack that broke
// the rule (named on stderr).

#include <cstddef>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "line_transport.h"
#include "mcp/call_outcome.h"
#include "mcp/client.h"

namespace toolhost::mcp_client_fuzz {

using Json = nlohmann::json;

void expect(bool ok, const char* rule);

class Oracle : public mcp_fuzz::LineTransport::Observer {
 public:
  explicit Oracle(size_t max_pages) : max_pages_(max_pages) {}

  // From the transport.
  void begin_line(std::string_view line) override;
  void begin_dropped() override;
  void end_line() override;
  void written(const std::string& text) override;
  void written_after_close(const std::string& text) override;

  // From the harness: each started operation gets a slot its callbacks name.
  size_t connect_started();
  void connected(size_t slot, bool ok, bool client_says_connected);
  size_t list_started();
  void listed(size_t slot, const mcp::ToolList& list);
  size_t call_started();
  void call_numbered(size_t slot, uint64_t number);
  void call_progress(size_t slot);
  void call_done(size_t slot, const mcp::CallOutcome& outcome);
  void begin_cancel(size_t slot);
  void end_cancel(size_t slot, bool canceled);
  void closed_event();
  void closing();  // the connection is over: nothing may be written from now on
  void finish();   // the client is gone: everything started has ended once

  // The id of the n-th latest request the client wrote (null when there is none).
  Json request_id(size_t back = 0) const;
  uint64_t call_number(size_t back = 0) const;
  size_t calls() const { return calls_.size(); }
  uint64_t call_number_of(size_t slot) const { return calls_[slot].number; }

 private:
  struct Request {
    std::string method;
    bool answered = false;   // a well-formed response with its id was delivered
    bool cancelled = false;  // we wrote notifications/cancelled for it
  };
  struct Call {
    uint64_t number = 0;
    int done = 0;
    bool cancelling = false;
    bool canceled = false;  // cancel() said it ended the call
  };

  std::map<int64_t, Request> requests_;
  std::vector<int64_t> request_order_;
  std::vector<int> connects_;
  std::vector<int> lists_;
  std::vector<Call> calls_;
  size_t max_pages_;
  size_t tools_list_requests_ = 0;
  size_t tools_listed_ = 0;  // entries in every tools/list answer delivered
  bool in_line_ = false;
  Json progress_token_;  // the progress notification's token in the line being delivered
  int closed_events_ = 0;
  bool closed_ = false;
};

}  // namespace toolhost::mcp_client_fuzz
