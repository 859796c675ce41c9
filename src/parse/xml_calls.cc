// CodeCompanion's XML tool calls (SPEC 10.2), read with pugixml: the `<tools><tool name=…>
// <action>…` shape (one call per action) and the xml2lua `<tool><name>…<parameters>…` shape.
#include "parse/xml_calls.h"

#include <algorithm>
#include <optional>
#include <pugixml.hpp>
#include <variant>

#include "parse/params.h"
#include "parse/remote_tools.h"
#include "parse/text.h"

namespace toolhost::parse {
namespace {

// Text of an element: its PCDATA and CDATA children, entities already decoded.
std::string element_text(const pugi::xml_node& node, bool* has_cdata = nullptr) {
  std::string text;
  for (pugi::xml_node child : node.children()) {
    if (child.type() == pugi::node_pcdata || child.type() == pugi::node_cdata) {
      text += child.value();
      if (has_cdata && child.type() == pugi::node_cdata) *has_cdata = true;
    }
  }
  return text;
}

// Parameters that hold code or file text: their indentation is content.
bool is_code_param(std::string_view name) {
  return name == "code" || name == "content" || name == "contents" || name == "search" ||
         name == "replace";
}

constexpr std::string_view kXmlSpace = " \t\r\n";

bool all_space(std::string_view text) {
  return text.find_first_not_of(kXmlSpace) == std::string_view::npos;
}

std::string_view trim_space(std::string_view text) {
  size_t begin = text.find_first_not_of(kXmlSpace);
  if (begin == std::string_view::npos) return {};
  return text.substr(begin, text.find_last_not_of(kXmlSpace) - begin + 1);
}

// `<code>\n    x = 1\n  </code>`: the newline and indentation that only lay the element out.
std::string strip_layout(std::string text) {
  size_t first_newline = text.find('\n');
  if (first_newline != std::string::npos &&
      all_space(std::string_view(text).substr(0, first_newline))) {
    text.erase(0, first_newline + 1);
  }
  size_t last_newline = text.rfind('\n');
  if (last_newline != std::string::npos && all_space(std::string_view(text).substr(last_newline))) {
    text.erase(last_newline);
  }
  return text;
}

// As CodeCompanion's xml2lua reads it: plain text is trimmed, except that code keeps its
// indentation; CDATA is taken as written.
std::string leaf_text(const pugi::xml_node& node) {
  bool has_cdata = false;
  std::string text = element_text(node, &has_cdata);
  if (has_cdata) return text;
  if (is_code_param(node.name())) return strip_layout(std::move(text));
  return std::string(trim_space(text));
}

bool has_child_elements(const pugi::xml_node& node) {
  for (pugi::xml_node child : node.children()) {
    if (child.type() == pugi::node_element) return true;
  }
  return false;
}

// Deeper nesting than any tool needs is kept as text, so hostile input cannot exhaust the stack.
constexpr int kMaxDepth = 32;

// Nested elements become nested objects; a repeated name becomes a list.
nlohmann::json element_value(const pugi::xml_node& node, int depth = 0) {
  if (depth >= kMaxDepth || !has_child_elements(node)) return leaf_text(node);
  nlohmann::json object = nlohmann::json::object();
  for (pugi::xml_node child : node.children()) {
    if (child.type() != pugi::node_element) continue;
    nlohmann::json value = element_value(child, depth + 1);
    auto existing = object.find(child.name());
    if (existing == object.end()) {
      object[child.name()] = std::move(value);
    } else {
      if (!existing->is_array()) *existing = nlohmann::json::array({*existing});
      existing->push_back(std::move(value));
    }
  }
  return object;
}

nlohmann::json params_of(const pugi::xml_node& node) {
  nlohmann::json value = element_value(node);
  return value.is_object() ? value : nlohmann::json::object();
}

struct RawCall {
  std::string tool;
  nlohmann::json params;
};

// CodeCompanion's `files` tool picks the operation with the action's type (SPEC 10.2).
std::variant<RawCall, std::string> files_action(const std::string& type, nlohmann::json params) {
  // `contents` is an alias of `content` in the tool table.
  if (type == "create") return RawCall{"create_or_replace_file", std::move(params)};
  if (type == "read" || type == "read_lines") return RawCall{"read_file", std::move(params)};
  if (type == "edit") return RawCall{"replace_in_file", std::move(params)};
  if (type == "delete") return RawCall{"delete_file", std::move(params)};
  if (type == "rename" || type == "move") return RawCall{"move_file", std::move(params)};
  if (type == "copy") return RawCall{"copy_file", std::move(params)};
  return "unknown `files` action `" + type + "`";
}

std::string text_member(const nlohmann::json& params, const char* name) {
  auto it = params.find(name);
  return it != params.end() && it->is_string() ? it->get<std::string>() : "";
}

// mcphub's actions (SPEC 13.3): `<tool name="mcp"><action type="use_mcp_tool">` before its
// 5.0, `<tool name="use_mcp_tool"><action>` since; `server_name`, `tool_name` and the arguments
// as JSON text in `tool_input` (mcphub) or `arguments`. The call is of the table's tool that
// server offers under that name, whatever name the table gave it.
std::variant<RawCall, std::string> mcp_action(const ToolTable& tools, const std::string& action,
                                              const nlohmann::json& params) {
  const std::string server = text_member(params, "server_name");
  if (action == "access_mcp_resource") {
    return "`access_mcp_resource` (MCP server `" + server + "`, resource `" +
           text_member(params, "uri") +
           "`) is not supported: toolhost calls MCP servers' tools, not their resources";
  }
  const std::string tool = text_member(params, "tool_name");
  if (server.empty() || tool.empty()) {
    return "`use_mcp_tool` needs `<server_name>` and `<tool_name>`";
  }
  auto found = find_remote_tool(tools, server, tool);
  if (auto* error = std::get_if<std::string>(&found)) return *error;
  const char* key = params.contains("arguments") ? "arguments" : "tool_input";
  auto arguments = arguments_object(
      params.contains(key) ? params[key] : nlohmann::json(),
      "the `<" + std::string(key) + ">` of MCP server `" + server + "`, tool `" + tool + "`,");
  if (auto* error = std::get_if<std::string>(&arguments)) return *error;
  return RawCall{std::get<const ToolSpec*>(found)->name,
                 std::move(std::get<nlohmann::json>(arguments))};
}

bool is_mcp_action(std::string_view name) {
  return name == "use_mcp_tool" || name == "access_mcp_resource";
}

std::variant<RawCall, std::string> action_call(const ToolTable& tools, const std::string& tool,
                                               const pugi::xml_node& action) {
  nlohmann::json params = params_of(action);
  params.erase("flag");  // cmd_runner's flag is CodeCompanion's business, not a parameter
  std::string type = action.attribute("type").value();
  if (tool == "files") return files_action(type, std::move(params));
  if (tool == "mcp" && !tools.find(tool)) {
    if (is_mcp_action(type)) return RawCall{type, std::move(params)};
    return "the `mcp` tool's action needs type=\"use_mcp_tool\" (or \"access_mcp_resource\")";
  }
  if (tool == "editor" && !type.empty()) params["action"] = type;
  return RawCall{tool, std::move(params)};
}

// `<command><a/></command>`: markup the XML parser read as elements where the tool takes text
// (or an element given twice). Said in XML's terms rather than as the JSON it became.
std::optional<std::string> markup_in_text(const ToolTable& tools, const RawCall& call) {
  const ToolSpec* spec = tools.find(call.tool);
  if (!spec) return std::nullopt;
  std::string name = structured_text_param(*spec, call.params);
  if (name.empty()) return std::nullopt;
  const nlohmann::json& value = call.params[name];
  const bool repeated = value.is_array() && std::all_of(value.begin(), value.end(),
                                                        [](auto& v) { return v.is_string(); });
  if (repeated) {
    return "`<" + name + ">` is given more than once, but `" + spec->name +
           "` takes one text there";
  }
  return "`<" + name + ">` holds XML elements, but `" + spec->name +
         "` takes text there; put markup in <![CDATA[…]]>";
}

class XmlReader {
 public:
  XmlReader(const ReadContext& ctx, int open_row, const std::string& content)
      : ctx_(ctx), open_row_(open_row), content_(content), rows_(open_row, content) {}

  Found read() {
    pugi::xml_document doc;
    pugi::xml_parse_result parsed =
        doc.load_buffer(content_.data(), content_.size(), pugi::parse_default);
    if (!parsed) {
      int row = row_of_offset(open_row_, content_, static_cast<size_t>(parsed.offset));
      found_.errors.push_back(
          {open_row_, open_row_, row, std::string("XML does not parse: ") + parsed.description()});
      return std::move(found_);
    }
    for (pugi::xml_node node : doc.children()) {
      if (node.type() != pugi::node_element) continue;
      if (std::string_view(node.name()) == "tools") {
        for (pugi::xml_node tool : node.children("tool")) read_tool(tool);
      } else if (std::string_view(node.name()) == "tool") {
        read_tool(node);
      }
    }
    return std::move(found_);
  }

 private:
  void read_tool(const pugi::xml_node& tool) {
    std::string name = tool.attribute("name").value();
    if (name.empty()) name = element_text(tool.child("name"));
    name = std::string(trim_space(name));
    if (tool.child("action")) {
      for (pugi::xml_node action : tool.children("action"))
        add(action_call(ctx_.options.tools, name, action), action);
    } else if (pugi::xml_node parameters = tool.child("parameters")) {
      add(RawCall{name, params_of(parameters)}, tool);
    } else {
      nlohmann::json params = params_of(tool);
      params.erase("name");
      add(RawCall{name, std::move(params)}, tool);
    }
  }

  void add(std::variant<RawCall, std::string> raw, const pugi::xml_node& node) {
    int row = node_row(node);
    if (auto* error = std::get_if<std::string>(&raw)) return fail(row, *error);
    if (auto* mcp = std::get_if<RawCall>(&raw);
        is_mcp_action(mcp->tool) && !ctx_.options.tools.find(mcp->tool)) {
      raw = mcp_action(ctx_.options.tools, mcp->tool, mcp->params);
      if (auto* error = std::get_if<std::string>(&raw)) return fail(row, *error);
    }
    auto& call = std::get<RawCall>(raw);
    if (auto error = markup_in_text(ctx_.options.tools, call)) return fail(row, *error);
    auto resolved = resolve_call(ctx_.options.tools, call.tool, std::move(call.params));
    if (auto* error = std::get_if<std::string>(&resolved)) return fail(row, *error);
    append_calls(found_.calls, ctx_.options.tools, std::move(std::get<ResolvedCall>(resolved)));
  }

  void fail(int row, const std::string& message) {
    found_.errors.push_back({open_row_, open_row_, row, message});
  }

  int node_row(const pugi::xml_node& node) const {
    ptrdiff_t offset = node.offset_debug();
    if (offset < 0) return open_row_;
    return rows_.row(static_cast<size_t>(offset));
  }

  const ReadContext& ctx_;
  int open_row_;
  const std::string& content_;
  RowIndex rows_;
  Found found_;
};

}  // namespace

bool is_xml_candidate(std::string_view content) {
  constexpr std::string_view kSpace = " \t\r\n";
  size_t first = content.find_first_not_of(kSpace);
  if (first == std::string_view::npos) return false;
  content.remove_prefix(first);
  // CodeCompanion's prompts may start with an XML declaration.
  if (starts_with(content, "<?xml")) {
    size_t end = content.find("?>");
    if (end == std::string_view::npos) return false;
    first = content.find_first_not_of(kSpace, end + 2);
    if (first == std::string_view::npos) return false;
    content.remove_prefix(first);
  }
  return starts_with(content, "<tool");
}

Found read_xml_calls(const ReadContext& ctx, int open_row, const std::string& content) {
  return XmlReader(ctx, open_row, content).read();
}

}  // namespace toolhost::parse
