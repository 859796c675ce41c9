#include "mcp/arguments_check.h"

#include <cmath>

namespace toolhost::mcp {
namespace {

using Json = nlohmann::json;

std::string type_of(const Json& value) {
  switch (value.type()) {
    case Json::value_t::null: return "null";
    case Json::value_t::boolean: return "boolean";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned: return "integer";
    case Json::value_t::number_float: return "number";
    case Json::value_t::string: return "string";
    case Json::value_t::array: return "array";
    default: return "object";
  }
}

bool has_type(const Json& value, const std::string& type) {
  std::string actual = type_of(value);
  if (actual == type) return true;
  if (type == "number" && actual == "integer") return true;
  // 3.0 is an integer to JSON Schema, and so is 1e300: whole, though no integer type holds it
  // (casting it to one would be undefined).
  if (type != "integer" || !value.is_number_float()) return false;
  double number = value.get<double>();
  return std::isfinite(number) && std::floor(number) == number;
}

std::string where(const std::string& path) {
  return path.empty() ? "the arguments" : "parameter \"" + path + "\"";
}

std::optional<std::string> check(const Json& schema, const Json& value, const std::string& path,
                                 int depth) {
  if (!schema.is_object() || depth > 32) return std::nullopt;
  if (auto type = schema.find("type"); type != schema.end()) {
    bool fits = false;
    std::string expected;
    for (const Json& one : type->is_array() ? *type : Json::array({*type})) {
      if (!one.is_string()) continue;
      expected += (expected.empty() ? "" : " or ") + one.get<std::string>();
      fits = fits || has_type(value, one.get<std::string>());
    }
    if (!expected.empty() && !fits) {
      return where(path) + ": expected " + expected + ", got " + type_of(value);
    }
  }
  if (auto choices = schema.find("enum"); choices != schema.end() && choices->is_array()) {
    bool listed = false;
    for (const Json& choice : *choices) listed = listed || choice == value;
    if (!listed) return where(path) + ": must be one of " + choices->dump();
  }
  if (value.is_number()) {
    double number = value.get<double>();
    if (auto min = schema.find("minimum");
        min != schema.end() && min->is_number() && number < min->get<double>()) {
      return where(path) + ": must be at least " + min->dump();
    }
    if (auto max = schema.find("maximum");
        max != schema.end() && max->is_number() && number > max->get<double>()) {
      return where(path) + ": must be at most " + max->dump();
    }
  }
  std::string prefix = path.empty() ? "" : path + ".";
  if (value.is_object()) {
    const Json properties = schema.value("properties", Json::object());
    if (auto required = schema.find("required"); required != schema.end() && required->is_array()) {
      for (const Json& name : *required) {
        if (name.is_string() && !value.contains(name.get<std::string>())) {
          return "parameter \"" + prefix + name.get<std::string>() + "\" is required";
        }
      }
    }
    bool closed = schema.value("additionalProperties", Json(true)) == Json(false);
    for (const auto& [name, member] : value.items()) {
      auto property = properties.find(name);
      if (property == properties.end()) {
        if (closed) return "parameter \"" + prefix + name + "\" is not known to this tool";
        continue;
      }
      if (auto error = check(*property, member, prefix + name, depth + 1)) return error;
    }
  }
  if (value.is_array()) {
    if (auto items = schema.find("items"); items != schema.end()) {
      for (size_t i = 0; i < value.size(); ++i) {
        std::string item = path + "[" + std::to_string(i) + "]";
        if (auto error = check(*items, value[i], item, depth + 1)) return error;
      }
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> check_arguments(const Json& schema, const Json& arguments) {
  return check(schema, arguments.is_null() ? Json::object() : arguments, "", 0);
}

}  // namespace toolhost::mcp
