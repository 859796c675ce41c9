#include "parse/params.h"

#include <algorithm>
#include <cctype>
#include <map>

#include "parse/remote_tools.h"

namespace toolhost::parse {
namespace {

bool is_list_param(const ToolSpec& spec, const std::string& name) {
  return std::find(spec.list_params.begin(), spec.list_params.end(), name) !=
         spec.list_params.end();
}

// `old_block2` -> ("old_block", 2); a name without a number suffix has number 1.
std::pair<std::string, int> split_number_suffix(const std::string& name) {
  size_t digits = name.size();
  while (digits > 0 && std::isdigit(static_cast<unsigned char>(name[digits - 1]))) --digits;
  if (digits == name.size() || digits == 0 || name.size() - digits > 6) return {name, 1};
  return {name.substr(0, digits), std::stoi(name.substr(digits))};
}

std::string canonical_name(const ToolSpec& spec, const std::string& name) {
  auto alias = spec.param_aliases.find(name);
  return alias == spec.param_aliases.end() ? name : alias->second;
}

// Items of a list parameter, keyed by their alias number: `old_block` (or a list given at
// once) is 1, `old_block2` is 2, and so on.
using NumberedItems = std::vector<std::pair<int, nlohmann::json>>;

// Renames aliases; list parameters collect their numbered aliases in number order. A canonical
// name wins over an alias of it when both are given.
nlohmann::json normalise(const ToolSpec& spec, const nlohmann::json& params) {
  nlohmann::json out = nlohmann::json::object();
  std::map<std::string, NumberedItems> lists;
  for (const auto& [name, value] : params.items()) {
    std::string canonical = canonical_name(spec, name);
    if (canonical == name && !is_list_param(spec, name)) {
      auto [base, number] = split_number_suffix(name);
      std::string base_canonical = canonical_name(spec, base);
      if (number > 1 && is_list_param(spec, base_canonical)) {
        lists[base_canonical].emplace_back(number, value);
        continue;
      }
    }
    if (is_list_param(spec, canonical)) {
      if (value.is_array()) {
        for (const auto& item : value) lists[canonical].emplace_back(1, item);
      } else {
        lists[canonical].emplace_back(1, value);
      }
      continue;
    }
    if (canonical != name && params.contains(canonical)) continue;
    out[canonical] = value;
  }
  for (auto& [name, items] : lists) {
    std::stable_sort(items.begin(), items.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    nlohmann::json list = nlohmann::json::array();
    for (auto& item : items) list.push_back(std::move(item.second));
    out[name] = std::move(list);
  }
  return out;
}

bool is_missing(const nlohmann::json& params, const std::string& name) {
  auto it = params.find(name);
  return it == params.end() || it->is_null() || (it->is_array() && it->empty());
}

bool all_strings(const nlohmann::json& list) {
  return std::all_of(list.begin(), list.end(), [](const auto& item) { return item.is_string(); });
}

bool is_structured_text(const ToolSpec& spec, const std::string& canonical,
                        const nlohmann::json& value) {
  if (is_list_param(spec, canonical)) {
    const auto bad_item = [](const nlohmann::json& item) {
      return item.is_object() || (item.is_array() && !all_strings(item));
    };
    return value.is_array() ? std::any_of(value.begin(), value.end(), bad_item) : bad_item(value);
  }
  if (std::find(spec.text_params.begin(), spec.text_params.end(), canonical) ==
      spec.text_params.end()) {
    return false;
  }
  if (value.is_array()) return canonical != spec.per_item_param || !all_strings(value);
  return value.is_object();
}

}  // namespace

std::string structured_text_param(const ToolSpec& spec, const nlohmann::json& params) {
  if (!params.is_object()) return "";
  for (const auto& [name, value] : params.items()) {
    std::string canonical = canonical_name(spec, name);
    if (canonical == name && !is_list_param(spec, name)) {
      auto [base, number] = split_number_suffix(name);
      if (number > 1 && is_list_param(spec, canonical_name(spec, base))) {
        canonical = canonical_name(spec, base);
      }
    }
    if (is_structured_text(spec, canonical, value)) return name;
  }
  return "";
}

std::variant<ResolvedCall, std::string> resolve_call(const ToolTable& table, std::string_view tool,
                                                     nlohmann::json params) {
  const ToolSpec* spec = find_tool(table, tool);
  if (!spec) return unknown_tool_message(table, tool);
  if (!params.is_object()) return "the parameters of `" + spec->name + "` are not an object";
  const std::string structured = structured_text_param(*spec, params);
  if (!structured.empty()) {
    return "parameter `" + structured + "` of `" + spec->name +
           "` must be text, not structured data (an object or a list)";
  }
  nlohmann::json normalised = normalise(*spec, params);
  for (const auto& name : spec->required) {
    if (is_missing(normalised, name)) {
      return "`" + spec->name + "` is missing required parameter `" + name + "`";
    }
  }
  // Lists that pair up (search/replace) must have the same length.
  if (spec->list_params.size() == 2) {
    const auto& first = spec->list_params[0];
    const auto& second = spec->list_params[1];
    size_t a = normalised.contains(first) ? normalised[first].size() : 0;
    size_t b = normalised.contains(second) ? normalised[second].size() : 0;
    if (a != b) {
      return "`" + spec->name + "` has " + std::to_string(a) + " `" + first + "` but " +
             std::to_string(b) + " `" + second + "`";
    }
  }
  return ResolvedCall{spec->name, std::move(normalised)};
}

void append_calls(std::vector<ToolCall>& calls, const ToolTable& table, ResolvedCall call) {
  auto add = [&](nlohmann::json params) {
    ToolCall out;
    out.tool = call.tool;
    out.params = std::move(params);
    calls.push_back(std::move(out));
  };
  const ToolSpec* spec = table.find(call.tool);
  auto list = spec && !spec->per_item_param.empty() ? call.params.find(spec->per_item_param)
                                                    : call.params.end();
  if (list == call.params.end() || !list->is_array()) return add(std::move(call.params));
  for (const auto& item : *list) {
    nlohmann::json params = call.params;
    params[spec->per_item_param] = item;
    add(std::move(params));
  }
}

}  // namespace toolhost::parse
