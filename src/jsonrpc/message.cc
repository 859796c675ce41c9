#include "jsonrpc/message.h"

namespace toolhost::jsonrpc {
namespace {

struct TooDeep {};

Parsed refuse(int code, std::string message, Json id = nullptr) {
  Parsed parsed;
  parsed.error = Error{code, std::move(message), nullptr};
  parsed.id = std::move(id);
  return parsed;
}

bool valid_id(const Json& id) {
  return id.is_string() || id.is_number_integer();
}

Parsed from_object(Json& object) {
  Json id = object.contains("id") ? object["id"] : Json();
  if (!id.is_null() && !valid_id(id)) {
    return refuse(code::kInvalidRequest, "\"id\" must be a string or an integer");
  }
  auto version = object.find("jsonrpc");
  if (version == object.end() || *version != "2.0") {
    return refuse(code::kInvalidRequest, "\"jsonrpc\" must be \"2.0\"", id);
  }
  Message message;
  auto method = object.find("method");
  if (method != object.end()) {
    if (!method->is_string())
      return refuse(code::kInvalidRequest, "\"method\" must be a string", id);
    message.method = method->get<std::string>();
    auto params = object.find("params");
    if (params != object.end()) {
      if (!params->is_object() && !params->is_array()) {
        return refuse(code::kInvalidRequest, "\"params\" must be an object or an array", id);
      }
      message.params = std::move(*params);
    }
    message.kind = object.contains("id") ? Message::Kind::kRequest : Message::Kind::kNotification;
    if (message.is_request() && id.is_null()) {
      return refuse(code::kInvalidRequest, "\"id\" must not be null");
    }
    message.id = std::move(id);
    return Parsed{std::move(message), std::nullopt, nullptr};
  }
  message.kind = Message::Kind::kResponse;
  message.id = std::move(id);
  auto result = object.find("result");
  auto error = object.find("error");
  if ((result == object.end()) == (error == object.end())) {
    return refuse(code::kInvalidRequest, "a response holds exactly one of \"result\" and \"error\"",
                  message.id);
  }
  if (result != object.end()) {
    message.result = std::move(*result);
  } else {
    if (!error->is_object() || !error->contains("code") || !(*error)["code"].is_number_integer()) {
      return refuse(code::kInvalidRequest, "\"error\" must be an object with an integer \"code\"",
                    message.id);
    }
    Error e;
    e.code = (*error)["code"].get<int>();
    if (auto text = error->find("message"); text != error->end() && text->is_string()) {
      e.message = text->get<std::string>();
    }
    if (auto data = error->find("data"); data != error->end()) e.data = std::move(*data);
    message.error = std::move(e);
  }
  return Parsed{std::move(message), std::nullopt, nullptr};
}

}  // namespace

Parsed parse_message(std::string_view text) {
  Json value;
  try {
    value = Json::parse(text, [](int depth, Json::parse_event_t, Json&) {
      if (depth > kMaxDepth) throw TooDeep{};
      return true;
    });
  } catch (const TooDeep&) {
    return refuse(code::kParseError, "nested deeper than " + std::to_string(kMaxDepth) + " levels");
  } catch (const Json::exception& e) {
    return refuse(code::kParseError, std::string("not JSON: ") + e.what());
  }
  if (value.is_array()) return refuse(code::kInvalidRequest, "batches are not supported");
  if (!value.is_object()) return refuse(code::kInvalidRequest, "a message must be a JSON object");
  Parsed parsed = from_object(value);
  if (parsed.message) parsed.message->text = text;
  return parsed;
}

Message make_request(Json id, std::string method, Json params) {
  Message message;
  message.kind = Message::Kind::kRequest;
  message.id = std::move(id);
  message.method = std::move(method);
  message.params = std::move(params);
  return message;
}

Message make_notification(std::string method, Json params) {
  Message message;
  message.kind = Message::Kind::kNotification;
  message.method = std::move(method);
  message.params = std::move(params);
  return message;
}

Message make_result(Json id, Json result) {
  Message message;
  message.kind = Message::Kind::kResponse;
  message.id = std::move(id);
  message.result = std::move(result);
  return message;
}

Message make_error(Json id, Error error) {
  Message message;
  message.kind = Message::Kind::kResponse;
  message.id = std::move(id);
  message.error = std::move(error);
  return message;
}

std::string encode(const Message& message) {
  Json out = {{"jsonrpc", "2.0"}};
  switch (message.kind) {
    case Message::Kind::kRequest: out["id"] = message.id; [[fallthrough]];
    case Message::Kind::kNotification:
      out["method"] = message.method;
      if (!message.params.is_null()) out["params"] = message.params;
      break;
    case Message::Kind::kResponse:
      out["id"] = message.id;
      if (message.error) {
        Json error = {{"code", message.error->code}, {"message", message.error->message}};
        if (!message.error->data.is_null()) error["data"] = message.error->data;
        out["error"] = std::move(error);
      } else {
        out["result"] = message.result;
      }
      break;
  }
  return out.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace toolhost::jsonrpc
