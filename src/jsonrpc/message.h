#pragma once
// JSON-RPC 2.0 messages as the MCP sides exchange them: one JSON text per message, no batches
// (MCP 2025-06-18 removed them; a batch is answered with an error). Pure functions: no I/O.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace toolhost::jsonrpc {

using Json = nlohmann::json;

// The codes JSON-RPC 2.0 reserves, and the two implementation-defined ones the MCP SDKs use.
namespace code {
constexpr int kParseError = -32700;
constexpr int kInvalidRequest = -32600;
constexpr int kMethodNotFound = -32601;
constexpr int kInvalidParams = -32602;
constexpr int kInternalError = -32603;
constexpr int kConnectionClosed = -32000;
constexpr int kRequestTimeout = -32001;
}  // namespace code

// Nesting deeper than this is refused before anything walks the tree: nlohmann's dump() and
// our own visitors recurse, and no honest MCP message nests a tenth as deep.
constexpr int kMaxDepth = 128;

struct Error {
  int code = code::kInternalError;
  std::string message;
  Json data;  // null when absent
};

struct Message {
  enum class Kind { kRequest, kNotification, kResponse };
  Kind kind = Kind::kNotification;
  Json id;             // a number or a string; requests and responses only
  std::string method;  // requests and notifications
  Json params;         // null when absent
  Json result;         // a successful response
  std::optional<Error> error;
  // The text parse_message() read it from, which the value does not keep all of (the order of
  // an object's keys): a view, valid while that text lives; for a handler, while it runs.
  std::string_view text;

  bool is_request() const { return kind == Kind::kRequest; }
  bool is_notification() const { return kind == Kind::kNotification; }
  bool is_response() const { return kind == Kind::kResponse; }
};

// One received text: a message, or the error to answer it with. `id` is the request's id when
// the text was JSON with a usable id (so the error can be correlated), null otherwise.
struct Parsed {
  std::optional<Message> message;
  std::optional<Error> error;
  Json id;
};

Parsed parse_message(std::string_view text);

Message make_request(Json id, std::string method, Json params);
Message make_notification(std::string method, Json params);
Message make_result(Json id, Json result);
Message make_error(Json id, Error error);

// One JSON text without a newline. Invalid UTF-8 in strings is replaced rather than thrown
// on: a tool's output is arbitrary bytes, and one bad byte must not lose the message.
std::string encode(const Message& message);

}  // namespace toolhost::jsonrpc
