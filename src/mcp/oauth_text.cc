#include "mcp/oauth_text.h"

#include <algorithm>
#include <cctype>

namespace toolhost::mcp {
namespace {

std::string oauth_lowered(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

int oauth_hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string oauth_base64_with(const std::string& bytes, const char* alphabet, bool pad) {
  std::string out;
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    unsigned n = (static_cast<unsigned char>(bytes[i]) << 16) |
                 (static_cast<unsigned char>(bytes[i + 1]) << 8) |
                 static_cast<unsigned char>(bytes[i + 2]);
    for (int shift : {18, 12, 6, 0}) out.push_back(alphabet[(n >> shift) & 63]);
  }
  size_t rest = bytes.size() - i;
  if (rest > 0) {
    unsigned n = static_cast<unsigned char>(bytes[i]) << 16;
    if (rest == 2) n |= static_cast<unsigned char>(bytes[i + 1]) << 8;
    out.push_back(alphabet[(n >> 18) & 63]);
    out.push_back(alphabet[(n >> 12) & 63]);
    if (rest == 2) out.push_back(alphabet[(n >> 6) & 63]);
    if (pad) out.append(rest == 1 ? "==" : "=");
  }
  return out;
}

}  // namespace

std::string percent_encode(const std::string& text) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out += {'%', kHex[c >> 4], kHex[c & 15]};
    }
  }
  return out;
}

std::string percent_decode(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '+') {
      out.push_back(' ');
    } else if (text[i] == '%' && i + 2 < text.size() && oauth_hex_value(text[i + 1]) >= 0 &&
               oauth_hex_value(text[i + 2]) >= 0) {
      out.push_back(static_cast<char>(oauth_hex_value(text[i + 1]) * 16 + oauth_hex_value(text[i + 2])));
      i += 2;
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

std::string form_encode(const std::vector<std::pair<std::string, std::string>>& fields) {
  std::string out;
  for (const auto& [name, value] : fields) {
    if (!out.empty()) out.push_back('&');
    out += percent_encode(name) + "=" + percent_encode(value);
  }
  return out;
}

std::map<std::string, std::string> form_decode(const std::string& text) {
  std::map<std::string, std::string> out;
  size_t at = 0;
  while (at <= text.size()) {
    size_t end = text.find('&', at);
    if (end == std::string::npos) end = text.size();
    std::string field = text.substr(at, end - at);
    size_t equals = field.find('=');
    if (!field.empty()) {
      out[percent_decode(field.substr(0, equals))] =
          equals == std::string::npos ? "" : percent_decode(field.substr(equals + 1));
    }
    at = end + 1;
  }
  return out;
}

std::string base64_encode(const std::string& bytes) {
  return oauth_base64_with(bytes, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", true);
}

std::string base64url_encode(const std::string& bytes) {
  return oauth_base64_with(bytes, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_",
                     false);
}

std::string UrlParts::host() const {
  if (!authority.empty() && authority[0] == '[') return authority.substr(0, authority.find(']') + 1);
  return authority.substr(0, authority.find(':'));
}

UrlParts split_url(const std::string& url) {
  UrlParts parts;
  size_t scheme_end = url.find("://");
  if (scheme_end == std::string::npos) return parts;
  parts.scheme = oauth_lowered(url.substr(0, scheme_end));
  if (parts.scheme != "http" && parts.scheme != "https") return parts;
  std::string rest = url.substr(scheme_end + 3);
  rest = rest.substr(0, rest.find('#'));
  size_t path_at = rest.find_first_of("/?");
  parts.authority = oauth_lowered(rest.substr(0, path_at));
  if (parts.authority.empty() || parts.authority.find('@') != std::string::npos) return parts;
  std::string tail = path_at == std::string::npos ? "" : rest.substr(path_at);
  size_t query_at = tail.find('?');
  parts.path = tail.substr(0, query_at);
  if (query_at != std::string::npos) parts.query = tail.substr(query_at + 1);
  parts.ok = true;
  return parts;
}

std::string with_query(const std::string& url,
                       const std::vector<std::pair<std::string, std::string>>& fields) {
  std::string base = url.substr(0, url.find('#'));
  char joint = base.find('?') == std::string::npos ? '?' : '&';
  if (base.back() == '?' || base.back() == '&') return base + form_encode(fields);
  return base + joint + form_encode(fields);
}

std::map<std::string, std::string> bearer_challenge(const std::string& header) {
  std::map<std::string, std::string> params;
  size_t at = 0;
  while (at < header.size() && std::isspace(static_cast<unsigned char>(header[at]))) ++at;
  if (oauth_lowered(header.substr(at, 6)) != "bearer") return params;
  at += 6;
  // name=value or name="quoted \" value", separated by commas.
  while (at < header.size()) {
    while (at < header.size() && (header[at] == ',' || std::isspace(static_cast<unsigned char>(header[at])))) ++at;
    size_t equals = header.find('=', at);
    if (equals == std::string::npos) break;
    std::string name = oauth_lowered(header.substr(at, equals - at));
    name.erase(std::remove_if(name.begin(), name.end(),
                              [](unsigned char c) { return std::isspace(c); }),
               name.end());
    at = equals + 1;
    std::string value;
    if (at < header.size() && header[at] == '"') {
      for (++at; at < header.size() && header[at] != '"'; ++at) {
        if (header[at] == '\\' && at + 1 < header.size()) ++at;
        value.push_back(header[at]);
      }
      ++at;
    } else {
      size_t end = header.find(',', at);
      if (end == std::string::npos) end = header.size();
      value = header.substr(at, end - at);
      while (!value.empty() && std::isspace(static_cast<unsigned char>(value.back()))) value.pop_back();
      at = end;
    }
    if (!name.empty()) params[name] = value;
  }
  return params;
}

std::vector<std::string> scope_words(const std::string& scope) {
  std::vector<std::string> words;
  size_t at = 0;
  while (at < scope.size()) {
    size_t end = scope.find(' ', at);
    if (end == std::string::npos) end = scope.size();
    std::string word = scope.substr(at, end - at);
    if (!word.empty() && std::find(words.begin(), words.end(), word) == words.end()) {
      words.push_back(word);
    }
    at = end + 1;
  }
  return words;
}

std::string scope_union(const std::string& a, const std::string& b) {
  std::vector<std::string> words = scope_words(a);
  for (const std::string& word : scope_words(b)) {
    if (std::find(words.begin(), words.end(), word) == words.end()) words.push_back(word);
  }
  std::string out;
  for (const std::string& word : words) out += (out.empty() ? "" : " ") + word;
  return out;
}

bool scope_covers(const std::string& held, const std::string& wanted) {
  std::vector<std::string> have = scope_words(held);
  for (const std::string& word : scope_words(wanted)) {
    if (std::find(have.begin(), have.end(), word) == have.end()) return false;
  }
  return true;
}

}  // namespace toolhost::mcp
