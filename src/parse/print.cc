#include "parse/print.h"

namespace toolhost::parse {

nlohmann::json to_json(const ToolCall& call) {
  nlohmann::json out = {
      {"id", call.id},
      {"tool", call.tool},
      {"params", call.params},
      {"dialect", to_string(call.dialect)},
      {"start", call.start},
      {"end", call.end},
      {"status", to_string(call.status)},
      {"result", nullptr},
  };
  if (call.result) {
    out["result"] = {{"start", call.result->start},
                     {"end", call.result->end},
                     {"id", call.result->job_id},
                     {"status", call.result->status}};
  }
  if (call.part > 0) out["part"] = call.part;
  if (call.column > 0) out["column"] = call.column;
  if (call.executed_form) out["executed_form"] = true;
  return out;
}

nlohmann::json to_json(const ParseError& error) {
  return {
      {"start", error.start}, {"end", error.end}, {"line", error.line}, {"message", error.message}};
}

nlohmann::json to_json(const ParseResult& result) {
  nlohmann::json messages = nlohmann::json::array();
  for (const auto& message : result.messages) {
    messages.push_back(
        {{"role", to_string(message.role)}, {"start", message.start}, {"end", message.end}});
  }
  nlohmann::json calls = nlohmann::json::array();
  for (const auto& call : result.calls) calls.push_back(to_json(call));
  nlohmann::json errors = nlohmann::json::array();
  for (const auto& error : result.errors) errors.push_back(to_json(error));
  return {{"messages", std::move(messages)},
          {"calls", std::move(calls)},
          {"errors", std::move(errors)}};
}

std::string error_text(const ParseError& error) {
  return "line " + std::to_string(error.line + 1) + ": " + error.message;
}

namespace {

// Rows [start, end) as 1-based inclusive lines: "9-13" or "9".
std::string line_range(int start, int end) {
  if (end - start <= 1) return std::to_string(start + 1);
  return std::to_string(start + 1) + "-" + std::to_string(end);
}

std::string dump(const nlohmann::json& value) {
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

std::string to_text(const ParseResult& result) {
  std::string out;
  for (const auto& message : result.messages) {
    out += "message " + std::string(to_string(message.role)) + " lines " +
           line_range(message.start, message.end) + "\n";
  }
  for (const auto& call : result.calls) {
    out += "call " + call.id + " " + call.tool + " (" + std::string(to_string(call.dialect)) +
           ") lines " + line_range(call.start, call.end) + " " +
           std::string(to_string(call.status));
    if (call.part > 0) out += " part " + std::to_string(call.part);
    if (call.result) {
      out += " result " + call.result->job_id + " lines " +
             line_range(call.result->start, call.result->end);
    }
    out += "\n  " + dump(call.params) + "\n";
  }
  for (const auto& error : result.errors) {
    out += "error lines " + line_range(error.start, error.end) + ": " + error_text(error) + "\n";
  }
  return out;
}

}  // namespace toolhost::parse
