#include "mcp/call_outcome.h"

namespace toolhost::mcp {
namespace {

std::string text_of(const Json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// The text one content block contributes; empty for none.
std::string block_text(const Json& block, std::vector<Media>& media) {
  if (!block.is_object()) return "";
  std::string type = text_of(block, "type");
  if (type == "text") return text_of(block, "text");
  if (type == "resource_link") return text_of(block, "uri");
  if (type == "image" || type == "audio") {
    Media item{type, text_of(block, "mimeType"), text_of(block, "data")};
    std::string note = "[" + type + " " + (item.mime_type.empty() ? "?" : item.mime_type) + ", " +
                       std::to_string(item.bytes()) + " bytes]";
    media.push_back(std::move(item));
    return note;
  }
  if (type == "resource") {
    const Json resource = block.value("resource", Json::object());
    if (!resource.is_object()) return "";
    if (resource.contains("text")) return text_of(resource, "text");
    return "[resource " + text_of(resource, "uri") + "]";
  }
  return "[" + (type.empty() ? std::string("unknown") : type) + " content]";
}

}  // namespace

size_t Media::bytes() const {
  size_t length = base64.size();
  while (length > 0 && (base64[length - 1] == '=' || base64[length - 1] == '\n')) --length;
  return length * 3 / 4;
}

const char* status_name(CallOutcome::Status status) {
  switch (status) {
    case CallOutcome::Status::kOk: return "ok";
    case CallOutcome::Status::kToolError: return "error";
    case CallOutcome::Status::kFailed: return "failed";
    case CallOutcome::Status::kCanceled: return "canceled";
    case CallOutcome::Status::kTimedOut: return "timed_out";
  }
  return "failed";
}

CallOutcome outcome_from_result(const Json& result) {
  CallOutcome outcome;
  if (!result.is_object()) {
    outcome.status = CallOutcome::Status::kFailed;
    outcome.text = "the server's tools/call result is not an object";
    return outcome;
  }
  auto is_error = result.find("isError");
  if (is_error != result.end() && is_error->is_boolean() && is_error->get<bool>()) {
    outcome.status = CallOutcome::Status::kToolError;
  }
  if (auto content = result.find("content"); content != result.end() && content->is_array()) {
    for (const Json& block : *content) {
      std::string text = block_text(block, outcome.media);
      if (text.empty()) continue;
      if (!outcome.text.empty()) outcome.text += '\n';
      outcome.text += text;
    }
  }
  if (auto structured = result.find("structuredContent"); structured != result.end()) {
    outcome.structured = *structured;
    if (outcome.text.empty() && !structured->is_null())
      outcome.text = structured->dump(2, ' ', false, Json::error_handler_t::replace);
  }
  return outcome;
}

}  // namespace toolhost::mcp
