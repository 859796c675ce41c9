#pragma once
// How a `tools/call` of an MCP server ended, as toolhost shows it (SPEC 13.3): the result's text
// content is the output, a `resource_link` its URI, images and audio noted by type and size,
// `structuredContent` as JSON when there is no text. Pure functions.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace toolhost::mcp {

using Json = nlohmann::json;

// An image or audio block, its data still base64 as it came.
struct Media {
  std::string type;  // "image" or "audio"
  std::string mime_type;
  std::string base64;
  size_t bytes() const;  // the decoded size
};

struct CallOutcome {
  enum class Status { kOk, kToolError, kFailed, kCanceled, kTimedOut };
  Status status = Status::kOk;
  // The output; for kFailed, kCanceled and kTimedOut the reason.
  std::string text;
  Json structured;  // structuredContent, null when absent
  std::vector<Media> media;

  bool ok() const { return status == Status::kOk; }
};

const char* status_name(CallOutcome::Status status);

// A `tools/call` result read back; a result that is not an object is kFailed, saying so.
CallOutcome outcome_from_result(const Json& result);

}  // namespace toolhost::mcp
