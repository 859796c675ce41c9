// JSON tool calls (SPEC 10.3), read with nlohmann_json: an object with "tool"/"name" and
// "parameters"/"arguments" (an object or a JSON-encoded string), or an array of them; also the
// shapes model APIs emit, which people paste or chat plugins display (SPEC 12, peer formats).
#include "parse/json_calls.h"

#include <optional>
#include <variant>

#include "parse/params.h"
#include "parse/text.h"

namespace toolhost::parse {
namespace {

// `"key"` followed by a colon: the text holds that key (lexically, SPEC 3.1).
bool holds_key(std::string_view text, std::string_view quoted_key) {
  for (size_t at = text.find(quoted_key); at != std::string_view::npos;
       at = text.find(quoted_key, at + 1)) {
    size_t next = text.find_first_not_of(" \t\r\n", at + quoted_key.size());
    if (next != std::string_view::npos && text[next] == ':') return true;
  }
  return false;
}

const nlohmann::json* member(const nlohmann::json& object, const char* a, const char* b) {
  auto it = object.find(a);
  if (it == object.end()) it = object.find(b);
  return it == object.end() ? nullptr : &*it;
}

struct CallShape {
  const nlohmann::json* name = nullptr;
  const nlohmann::json* arguments = nullptr;
};

// The name and arguments of one call object, whichever shape it has:
//   {"tool"|"name", "parameters"|"arguments"}               toolhost, OpenAI's `function` alone
//   {"id", "type": "function", "function": {…}}             an OpenAI tool call
//   {"function": {…}}                                       an Ollama `tool_calls` element
//   {"type": "tool_use", "id", "name", "input"}             an Anthropic content block
std::optional<CallShape> call_shape(const nlohmann::json& value) {
  if (!value.is_object()) return std::nullopt;
  const nlohmann::json* object = &value;
  if (auto function = value.find("function"); function != value.end() && function->is_object()) {
    object = &*function;
  }
  CallShape shape;
  shape.name = member(*object, "tool", "name");
  shape.arguments = member(*object, "parameters", "arguments");
  auto type = value.find("type");
  if (!shape.arguments && type != value.end() && *type == "tool_use") {
    shape.arguments = member(value, "input", "input");
  }
  if (!shape.name || !shape.name->is_string() || !shape.arguments) return std::nullopt;
  return shape;
}

// `{"tool_calls": [...]}`, an assistant message of the OpenAI or Ollama API, holds its calls.
const nlohmann::json& calls_of(const nlohmann::json& value) {
  if (value.is_object()) {
    auto calls = value.find("tool_calls");
    if (calls != value.end() && calls->is_array()) return *calls;
  }
  return value;
}

constexpr const char* kAcceptedShapes =
    "accepted: {\"tool\", \"parameters\"}, {\"name\", \"arguments\"}, an OpenAI tool call "
    "{\"type\": \"function\", \"function\": {…}}, an Ollama {\"function\": {…}}, an Anthropic "
    "{\"type\": \"tool_use\", \"name\", \"input\"}, or an array of these";

// nlohmann's messages start with "[json.exception.parse_error.101] "; people need the rest.
std::string readable(const char* what) {
  std::string_view text(what);
  size_t bracket = text.find("] ");
  return std::string(bracket == std::string_view::npos ? text : text.substr(bracket + 2));
}

class JsonReader {
 public:
  JsonReader(const ReadContext& ctx, int open_row, const std::string& content)
      : ctx_(ctx), open_row_(open_row), content_(content), rows_(open_row, content) {}

  Found read() {
    nlohmann::json value;
    if (json_depth(content_) > kMaxJsonDepth) {
      fail(open_row_ + 1,
           "the JSON is nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
      return std::move(found_);
    }
    try {
      value = nlohmann::json::parse(content_);
    } catch (const nlohmann::json::parse_error& e) {
      size_t byte = e.byte > 0 ? e.byte - 1 : 0;
      fail(row_of_offset(open_row_, content_, byte), "JSON does not parse: " + readable(e.what()));
      return std::move(found_);
    }
    const nlohmann::json& calls = calls_of(value);
    if (calls.is_array()) {
      for (size_t i = 0; i < calls.size(); ++i) {
        if (!read_call(calls[i])) {
          fail(open_row_ + 1, "element " + std::to_string(i) +
                                  " of the JSON array is not a tool call (" + kAcceptedShapes +
                                  ")");
        }
      }
    } else if (!read_call(calls)) {
      fail(open_row_ + 1,
           std::string("the JSON block is not a tool call (") + kAcceptedShapes + ")");
    }
    return std::move(found_);
  }

 private:
  // False when the value is no call object at all; errors inside a call are reported here.
  bool read_call(const nlohmann::json& value) {
    auto shape = call_shape(value);
    if (!shape) return false;
    const nlohmann::json* params = shape->arguments;
    const std::string& name = shape->name->get_ref<const std::string&>();
    int row = row_of_name(name);
    nlohmann::json decoded = *params;
    // OpenAI sends a call without arguments as "" (or "{}").
    if (params->is_string() && trim(params->get_ref<const std::string&>()).empty()) {
      decoded = nlohmann::json::object();
    } else if (params->is_string()) {
      const std::string& text = params->get_ref<const std::string&>();
      if (json_depth(text) > kMaxJsonDepth) {
        fail(row, "the arguments of `" + name + "` are nested deeper than " +
                      std::to_string(kMaxJsonDepth) + " levels");
        return true;
      }
      decoded = nlohmann::json::parse(text, nullptr, false);
      if (decoded.is_discarded()) {
        fail(row, "the arguments of `" + name + "` are not valid JSON");
        return true;
      }
    }
    auto resolved = resolve_call(ctx_.options.tools, name, std::move(decoded));
    if (auto* error = std::get_if<std::string>(&resolved)) {
      fail(row, *error);
      return true;
    }
    append_calls(found_.calls, ctx_.options.tools, std::move(std::get<ResolvedCall>(resolved)));
    return true;
  }

  // nlohmann keeps no positions; the line naming the tool is the best pointer for people.
  // Calls are read in text order, so each name is searched from where the last one was
  // found; a name not found as written (escaped) ends the search for good, which keeps 100k
  // calls in one block linear. The row is a hint for the diagnostic only.
  int row_of_name(const std::string& name) {
    if (name_from_ == std::string::npos) return open_row_ + 1;
    size_t at = content_.find("\"" + name + "\"", name_from_);
    name_from_ = at == std::string::npos ? at : at + name.size() + 2;
    return at == std::string::npos ? open_row_ + 1 : rows_.row(at);
  }

  void fail(int row, std::string message) {
    found_.errors.push_back({open_row_, open_row_, row, std::move(message)});
  }

  const ReadContext& ctx_;
  int open_row_;
  const std::string& content_;
  RowIndex rows_;
  size_t name_from_ = 0;
  Found found_;
};

}  // namespace

bool is_json_candidate(std::string_view content) {
  size_t first = content.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || (content[first] != '{' && content[first] != '[')) {
    return false;
  }
  // Anthropic's `input` is too common a key to count alone; with "tool_use" it is a call.
  return (holds_key(content, "\"tool\"") || holds_key(content, "\"name\"")) &&
         (holds_key(content, "\"parameters\"") || holds_key(content, "\"arguments\"") ||
          (holds_key(content, "\"input\"") &&
           content.find("\"tool_use\"") != std::string_view::npos));
}

Found read_json_calls(const ReadContext& ctx, int open_row, const std::string& content) {
  return JsonReader(ctx, open_row, content).read();
}

}  // namespace toolhost::parse
