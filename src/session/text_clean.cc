#include "session/text_clean.h"

#include <cstdio>

namespace toolhost::session {
namespace {

// Length of the escape sequence starting at text[i] (text[i] == ESC), or 1 when unknown.
size_t escape_length(std::string_view text, size_t i) {
  if (i + 1 >= text.size()) return 1;
  char kind = text[i + 1];
  if (kind == '[') {  // CSI: parameters, then one final byte in 0x40..0x7e
    size_t j = i + 2;
    while (j < text.size() && !(text[j] >= 0x40 && text[j] <= 0x7e)) ++j;
    return j < text.size() ? j - i + 1 : text.size() - i;
  }
  if (kind == ']') {  // OSC: up to BEL or ESC '\'
    size_t j = i + 2;
    while (j < text.size() && text[j] != '\a' && !(text[j] == '\x1b' && j + 1 < text.size() &&
                                                    text[j + 1] == '\\')) {
      ++j;
    }
    if (j >= text.size()) return text.size() - i;
    return text[j] == '\a' ? j - i + 1 : j - i + 2;
  }
  return 2;  // two-byte escapes (ESC =, ESC (, …)
}

// Length of a valid UTF-8 sequence at text[i], 0 when the bytes there are not one.
size_t utf8_length(std::string_view text, size_t i) {
  auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  unsigned char c = byte(i);
  size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
  if (n == 0 || i + n > text.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xc0) != 0x80) return 0;
  }
  if (n == 2 && c < 0xc2) return 0;                            // overlong
  if (n == 3 && c == 0xe0 && byte(i + 1) < 0xa0) return 0;     // overlong
  if (n == 3 && c == 0xed && byte(i + 1) >= 0xa0) return 0;    // surrogate
  if (n == 4 && c == 0xf0 && byte(i + 1) < 0x90) return 0;     // overlong
  if (n == 4 && (c > 0xf4 || (c == 0xf4 && byte(i + 1) >= 0x90))) return 0;
  return n;
}

}  // namespace

std::string clean_line(std::string_view raw) {
  if (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);  // CRLF
  // A terminal overwrites the line at each '\r': only what follows the last one shows.
  size_t cr = raw.rfind('\r');
  if (cr != std::string_view::npos) raw.remove_prefix(cr + 1);

  std::string out;
  out.reserve(raw.size());
  size_t code_points = 0;
  for (size_t i = 0; i < raw.size();) {
    if (code_points == kMaxLineCodePoints) {
      out += "…";
      break;
    }
    unsigned char c = static_cast<unsigned char>(raw[i]);
    if (c == 0x1b) {
      i += escape_length(raw, i);
      continue;
    }
    if (c == '\t') {
      out.push_back('\t');
      ++i;
    } else if (c < 0x20 || c == 0x7f) {
      out.push_back('^');
      out.push_back(c == 0x7f ? '?' : static_cast<char>(c + 0x40));
      ++i;
    } else if (size_t n = utf8_length(raw, i)) {
      out.append(raw.substr(i, n));
      i += n;
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "<%02x>", c);
      out += hex;
      ++i;
    }
    ++code_points;
  }
  return out;
}

std::vector<std::string> clean_lines(std::string_view text) {
  std::vector<std::string> lines;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    lines.push_back(clean_line(text.substr(0, nl)));
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return lines;
}

}  // namespace toolhost::session
