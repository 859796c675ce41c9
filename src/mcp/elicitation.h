#pragma once
// A server asking the user for input in the middle of a call (`elicitation/create`, form mode,
// with SEP-1034's default values). mcp::Client hands the request to an Elicit hook and sends
// back what the hook answers; without a hook it declares no `elicitation` capability and the
// method is not found, as the protocol expects of a client that cannot ask.

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "jsonrpc/message.h"

namespace toolhost::mcp {

using Json = jsonrpc::Json;

constexpr const char* kElicitationCreate = "elicitation/create";

struct ElicitationRequest {
  std::string message;
  Json requested_schema = Json::object();  // a flat object schema: properties, required
  // The properties' names in the order the server wrote them, which Json forgets (it sorts
  // keys): the form is asked in this order. Empty: name order.
  std::vector<std::string> field_order;
  // Set by mcp::Client: false once nobody waits for the answer any more (the calls running when
  // the server asked have all ended, or the connection closed), so a question still queued or
  // being asked is dropped. Unset: always wanted.
  std::function<bool()> still_wanted;
  // Set by mcp::Client: registers `dropped`, called once when still_wanted turns false before
  // the answer (a call ended, the connection closed), so that a question being asked ends then
  // rather than when the user answers, and the questions after it are not held up.
  std::function<void(std::function<void()> dropped)> on_dropped;

  bool wanted() const { return !still_wanted || still_wanted(); }
};

struct ElicitationAnswer {
  enum class Action { kAccept, kDecline, kCancel };
  Action action = Action::kCancel;
  Json content = Json::object();  // the fields, with kAccept only
};

// Called once per request; `answer` may be called later (after asking a user), exactly once.
// Not calling it before the call ends is fine: the server gets an internal error then.
using Elicit =
    std::function<void(const ElicitationRequest&, std::function<void(ElicitationAnswer)> answer)>;

// `elicitation/create`'s params checked: the request, or why it is refused. Only form mode: a
// `mode` of "url" (2025-11-25) is refused, since toolhost declares form support alone.
// `message_text`, the request's JSON text, gives field_order.
std::optional<ElicitationRequest> parse_elicitation(const Json& params, std::string& error,
                                                    std::string_view message_text = {});

// The names of the form's properties: in field_order, then any it leaves out in name order.
std::vector<std::string> field_names(const ElicitationRequest& request);

// What a client with no one to ask answers (headless, `toolhost mcp call`): accept with every
// property's `default`; decline when a required property has none, since accept must carry it.
ElicitationAnswer answer_with_defaults(const ElicitationRequest& request);

// Why `content` does not fit the request's form (a property it does not list, a wrong type, a
// value out of its enum, oneOf, minimum/maximum or length, a required one missing); empty when
// it fits. The content of an accept is checked with it before it is sent.
std::optional<std::string> check_elicitation_content(const ElicitationRequest& request,
                                                     const Json& content);

// The `elicitation/create` result for `answer`.
Json elicitation_result(const ElicitationAnswer& answer);

}  // namespace toolhost::mcp
