#include "mcp/elicitation.h"

namespace toolhost::mcp {

std::optional<ElicitationRequest> parse_elicitation(const Json& params, std::string& error) {
  if (!params.is_object()) {
    error = "elicitation/create needs params";
    return std::nullopt;
  }
  auto mode = params.find("mode");
  if (mode != params.end() && *mode != "form") {
    error = "toolhost answers form elicitation only, not mode " + mode->dump();
    return std::nullopt;
  }
  ElicitationRequest request;
  auto message = params.find("message");
  if (message == params.end() || !message->is_string()) {
    error = "elicitation/create needs a string message";
    return std::nullopt;
  }
  request.message = message->get<std::string>();
  auto schema = params.find("requestedSchema");
  if (schema == params.end() || !schema->is_object() ||
      (schema->contains("properties") && !(*schema)["properties"].is_object())) {
    error = "elicitation/create needs a requestedSchema object with object properties";
    return std::nullopt;
  }
  request.requested_schema = *schema;
  return request;
}

ElicitationAnswer answer_with_defaults(const ElicitationRequest& request) {
  ElicitationAnswer answer;
  const Json& schema = request.requested_schema;
  Json properties = schema.value("properties", Json::object());
  for (auto& [name, property] : properties.items()) {
    if (property.is_object() && property.contains("default"))
      answer.content[name] = property["default"];
  }
  Json required = schema.value("required", Json::array());
  for (const Json& name : required.is_array() ? required : Json::array()) {
    if (name.is_string() && !answer.content.contains(name.get<std::string>())) {
      answer.action = ElicitationAnswer::Action::kDecline;
      answer.content = Json::object();
      return answer;
    }
  }
  answer.action = ElicitationAnswer::Action::kAccept;
  return answer;
}

Json elicitation_result(const ElicitationAnswer& answer) {
  switch (answer.action) {
    case ElicitationAnswer::Action::kAccept:
      return {{"action", "accept"}, {"content", answer.content}};
    case ElicitationAnswer::Action::kDecline: return {{"action", "decline"}};
    case ElicitationAnswer::Action::kCancel: break;
  }
  return {{"action", "cancel"}};
}

}  // namespace toolhost::mcp
