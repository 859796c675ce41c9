#include "mcp/elicitation.h"

#include <algorithm>

#include "mcp/arguments_check.h"

namespace toolhost::mcp {
namespace {

// A string property's oneOf of titled choices ({const, title}): whether `value` is one of them.
std::optional<std::string> check_one_of(const std::string& name, const Json& property,
                                        const Json& value) {
  auto choices = property.find("oneOf");
  if (choices == property.end() || !choices->is_array()) return std::nullopt;
  Json allowed = Json::array();
  for (const Json& choice : *choices) {
    if (!choice.is_object() || !choice.contains("const")) continue;
    if (choice["const"] == value) return std::nullopt;
    allowed.push_back(choice["const"]);
  }
  if (allowed.empty()) return std::nullopt;
  return "field \"" + name + "\": must be one of " + allowed.dump();
}

std::optional<std::string> check_length(const std::string& name, const Json& property,
                                        const Json& value) {
  if (!value.is_string()) return std::nullopt;
  // Characters, not bytes: UTF-8 continuation bytes do not count.
  size_t length = 0;
  for (unsigned char c : value.get_ref<const std::string&>()) length += (c & 0xC0) != 0x80;
  auto min = property.find("minLength");
  if (min != property.end() && min->is_number_unsigned() && length < min->get<size_t>()) {
    return "field \"" + name + "\": must be at least " + min->dump() + " characters long";
  }
  auto max = property.find("maxLength");
  if (max != property.end() && max->is_number_unsigned() && length > max->get<size_t>()) {
    return "field \"" + name + "\": must be at most " + max->dump() + " characters long";
  }
  return std::nullopt;
}

// The keys of params.requestedSchema.properties as `message_text` lists them; none when it is
// not such a message. parse_message() read the text already, within its depth limit.
std::vector<std::string> written_property_order(std::string_view message_text) {
  std::vector<std::string> order;
  if (message_text.empty()) return order;
  auto message = nlohmann::ordered_json::parse(message_text, nullptr, false);
  const nlohmann::ordered_json::json_pointer path("/params/requestedSchema/properties");
  if (message.is_discarded() || !message.contains(path) || !message[path].is_object()) {
    return order;
  }
  for (const auto& property : message[path].items()) order.push_back(property.key());
  return order;
}

}  // namespace

std::optional<ElicitationRequest> parse_elicitation(const Json& params, std::string& error,
                                                    std::string_view message_text) {
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
  request.field_order = written_property_order(message_text);
  return request;
}

std::vector<std::string> field_names(const ElicitationRequest& request) {
  const Json properties = request.requested_schema.value("properties", Json::object());
  std::vector<std::string> names;
  for (const std::string& name : request.field_order) {
    bool fresh = std::find(names.begin(), names.end(), name) == names.end();
    if (fresh && properties.contains(name)) names.push_back(name);
  }
  for (const auto& [name, property] : properties.items()) {
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  return names;
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

std::optional<std::string> check_elicitation_content(const ElicitationRequest& request,
                                                     const Json& content) {
  if (!content.is_object()) return "the content must be an object of fields";
  const Json& schema = request.requested_schema;
  const Json properties = schema.value("properties", Json::object());
  Json required = schema.value("required", Json::array());
  for (const Json& name : required.is_array() ? required : Json::array()) {
    if (name.is_string() && !content.contains(name.get<std::string>())) {
      return "field \"" + name.get<std::string>() + "\" is required";
    }
  }
  for (const auto& [name, value] : content.items()) {
    auto property = properties.find(name);
    if (property == properties.end()) return "field \"" + name + "\" is not in the form";
    // check_arguments names a parameter; here it is a field of the form.
    auto error =
        check_arguments({{"type", "object"}, {"properties", {{name, *property}}}}, {{name, value}});
    if (error && error->rfind("parameter ", 0) == 0) error = "field " + error->substr(10);
    if (!error) error = check_one_of(name, *property, value);
    if (!error) error = check_length(name, *property, value);
    if (error) return error;
  }
  return std::nullopt;
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
