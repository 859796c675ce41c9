#include "tools/text_edits.h"

#include <algorithm>
#include <vector>

namespace toolhost::tools {
namespace {

size_t count_occurrences(const std::string& text, const std::string& needle) {
  size_t count = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
    ++count;
  }
  return count;
}

std::string with_crlf(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n' && (i == 0 || text[i - 1] != '\r')) out.push_back('\r');
    out.push_back(text[i]);
  }
  return out;
}

size_t line_count(const std::string& text) {
  if (text.empty()) return 0;
  return static_cast<size_t>(std::count(text.begin(), text.end(), '\n')) +
         (text.back() == '\n' ? 0 : 1);
}

// "line 3 (`b = 2`)": where a candidate's search text ends, by its last non-blank line.
std::string candidate_name(const std::string& search) {
  size_t end = search.find_last_not_of(" \t\r\n");
  if (end == std::string::npos) return "an empty text";
  size_t start = search.rfind('\n', end);
  start = start == std::string::npos ? 0 : start + 1;
  std::string line = search.substr(start, end + 1 - start);
  if (line.size() > 40) line = line.substr(0, 37) + "...";
  const size_t number =
      static_cast<size_t>(std::count(search.begin(), search.begin() + start, '\n')) + 1;
  return "line " + std::to_string(number) + " (`" + line + "`)";
}

std::string listed(const std::vector<std::string>& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += i + 1 == items.size() ? " and " : ", ";
    out += items[i];
  }
  return out;
}

// The candidate of a pair whose search text occurs once in `text`, as its index.
core::Result<size_t> chosen_candidate(const std::string& text, const nlohmann::json& search,
                                      bool crlf) {
  std::vector<size_t> fits;
  std::vector<std::string> counted;
  std::vector<std::string> names;
  for (size_t j = 0; j < search.size(); ++j) {
    const std::string from = search[j].get<std::string>();
    const size_t count = from.empty() ? 0 : count_occurrences(text, crlf ? with_crlf(from) : from);
    if (count == 1) fits.push_back(j);
    names.push_back(candidate_name(from));
    counted.push_back(
        "ending at " + names.back() + " " +
        (count == 0 ? "is not in the file" : "occurs " + std::to_string(count) + " times"));
  }
  if (fits.size() == 1) return fits.front();
  if (fits.empty()) {
    return core::error(
        "the fence has several runs of blank lines and no split fits: the old "
        "text " +
        listed(counted));
  }
  std::vector<std::string> fitting;
  for (size_t j : fits) fitting.push_back(names[j]);
  return core::error("the fence splits " + std::to_string(fits.size()) +
                     " ways whose old text occurs once in the file, ending at " + listed(fitting) +
                     ": use `**Search:**` and `**Replace:**` fences");
}

}  // namespace

core::Result<std::string> replace_in_text(const std::string& text, const nlohmann::json& search,
                                          const nlohmann::json& replace) {
  if (!search.is_array() || !replace.is_array() || search.size() != replace.size()) {
    return core::error("search and replace must be lists of the same length");
  }
  const bool crlf = text.find("\r\n") != std::string::npos;
  std::string out = text;
  for (size_t i = 0; i < search.size(); ++i) {
    const std::string pair = "pair " + std::to_string(i + 1);
    const nlohmann::json* from_value = &search[i];
    const nlohmann::json* to_value = &replace[i];
    if (from_value->is_array() && to_value->is_array() && !from_value->empty() &&
        from_value->size() == to_value->size() &&
        std::all_of(from_value->begin(), from_value->end(),
                    [](auto& v) { return v.is_string(); })) {
      auto chosen = chosen_candidate(out, *from_value, crlf);
      if (!chosen) return core::error(pair + ": " + chosen.error());
      from_value = &(*from_value)[*chosen];
      to_value = &(*to_value)[*chosen];
    }
    if (!from_value->is_string() || !to_value->is_string()) {
      return core::error(pair + ": search and replace must be text");
    }
    std::string from = from_value->get<std::string>();
    std::string to = to_value->get<std::string>();
    if (from.empty()) return core::error(pair + ": the search text is empty");
    if (crlf) {
      from = with_crlf(from);
      to = with_crlf(to);
    }
    size_t count = count_occurrences(out, from);
    if (count == 0) return core::error(pair + ": the search text is not in the file");
    if (count > 1) {
      return core::error(pair + ": the search text occurs " + std::to_string(count) +
                         " times; it must occur once");
    }
    out.replace(out.find(from), from.size(), to);
  }
  return out;
}

core::Result<std::string> insert_in_text(const std::string& text, uint64_t after,
                                         const std::string& content) {
  const size_t lines = line_count(text);
  if (after > lines) {
    return core::error("the file has " + std::to_string(lines) + " lines: there is no line " +
                       std::to_string(after) + " to insert after");
  }
  const bool crlf = text.find("\r\n") != std::string::npos;
  const std::string newline = crlf ? "\r\n" : "\n";
  std::string inserted = crlf ? with_crlf(content) : content;
  if (after == lines && !text.empty() && text.back() != '\n') {
    // After the last line of a file without a final newline: it stays without one.
    return text + newline + inserted;
  }
  size_t at = 0;  // every line up to `after` ends with a newline here
  for (uint64_t n = 0; n < after; ++n) at = text.find('\n', at) + 1;
  return text.substr(0, at) + inserted + newline + text.substr(at);
}

std::string wrote_summary(const std::string& path, const std::string& content) {
  return "Wrote " + std::to_string(line_count(content)) + " lines to " + path;
}

std::string replaced_summary(const std::string& path, size_t pairs) {
  return "Replaced " + std::to_string(pairs) + " block(s) in " + path;
}

std::string inserted_summary(const std::string& path, uint64_t after, const std::string& content) {
  const size_t lines = static_cast<size_t>(std::count(content.begin(), content.end(), '\n')) + 1;
  return "Inserted " + std::to_string(lines) + " line(s) into " + path +
         (after == 0 ? " at the top" : " after line " + std::to_string(after));
}

}  // namespace toolhost::tools
