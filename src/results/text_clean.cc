#include "results/text_clean.h"

#include <cstdio>

namespace toolhost::results {
namespace {

bool is_st(std::string_view text, size_t j) {  // String Terminator: ESC '\' or BEL
  return text[j] == '\a' || (text[j] == '\x1b' && j + 1 < text.size() && text[j + 1] == '\\');
}

// Length of a control string (OSC, DCS, SOS, PM, APC) whose body starts at text[j]: up to
// and including its terminator, or to the end of the line.
size_t string_length(std::string_view text, size_t i, size_t j) {
  while (j < text.size() && !is_st(text, j)) ++j;
  if (j >= text.size()) return text.size() - i;
  return text[j] == '\a' ? j - i + 1 : j - i + 2;
}

// Length of a CSI sequence whose parameters start at text[j]: parameter and intermediate
// bytes, then one final byte in 0x40..0x7e.
size_t csi_length(std::string_view text, size_t i, size_t j) {
  while (j < text.size() && !(text[j] >= 0x40 && text[j] <= 0x7e)) ++j;
  return j < text.size() ? j - i + 1 : text.size() - i;
}

// Length of the escape sequence starting at text[i] (text[i] == ESC).
size_t escape_length(std::string_view text, size_t i) {
  if (i + 1 >= text.size()) return 1;
  char kind = text[i + 1];
  if (kind == '[') return csi_length(text, i, i + 2);
  // OSC, DCS, SOS, PM, APC: a string up to ST.
  if (kind == ']' || kind == 'P' || kind == 'X' || kind == '^' || kind == '_') {
    return string_length(text, i, i + 2);
  }
  // ESC, intermediate bytes 0x20..0x2f, one final byte 0x30..0x7e: "ESC =", "ESC ( B".
  size_t j = i + 1;
  while (j < text.size() && text[j] >= 0x20 && text[j] <= 0x2f) ++j;
  if (j < text.size() && text[j] >= 0x30 && text[j] <= 0x7e) return j - i + 1;
  return j - i;  // malformed: drop the ESC and its intermediates
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
  if (n == 2 && c < 0xc2) return 0;                          // overlong
  if (n == 3 && c == 0xe0 && byte(i + 1) < 0xa0) return 0;   // overlong
  if (n == 3 && c == 0xed && byte(i + 1) >= 0xa0) return 0;  // surrogate
  if (n == 4 && c == 0xf0 && byte(i + 1) < 0x90) return 0;   // overlong
  if (n == 4 && (c > 0xf4 || (c == 0xf4 && byte(i + 1) >= 0x90))) return 0;
  return n;
}

}  // namespace

std::string clean_line(std::string_view raw, size_t max_code_points) {
  // A terminal overwrites the line at each '\r': only what follows the last one shows.
  // Trailing ones (CRLF, a progress bar's final "\r\r") overwrite nothing.
  while (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
  size_t cr = raw.rfind('\r');
  if (cr != std::string_view::npos) raw.remove_prefix(cr + 1);

  std::string out;
  out.reserve(raw.size());
  size_t shown = 0;  // code points of `out`
  auto emit = [&](std::string_view piece, size_t code_points) {
    if (shown + code_points > max_code_points) return false;
    out.append(piece);
    shown += code_points;
    return true;
  };
  auto emit_hex = [&](unsigned value) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "<%02x>", value);
    return emit(hex, 4);
  };
  for (size_t i = 0; i < raw.size();) {
    unsigned char c = static_cast<unsigned char>(raw[i]);
    bool fits = true;
    if (c == 0x1b) {
      i += escape_length(raw, i);
      continue;
    }
    if (c == '\t') {
      fits = emit("\t", 1);
      ++i;
    } else if (c < 0x20 || c == 0x7f) {
      const char caret[] = {'^', c == 0x7f ? '?' : static_cast<char>(c + 0x40), '\0'};
      fits = emit(caret, 2);
      ++i;
    } else if (size_t n = utf8_length(raw, i)) {
      unsigned second = n == 2 ? static_cast<unsigned char>(raw[i + 1]) : 0;
      if (c == 0xc2 && second == 0x9b) {  // C1 CSI, the 8-bit form of ESC [
        i += csi_length(raw, i, i + 2);
        continue;
      }
      if (c == 0xc2 && second == 0x9d) {  // C1 OSC
        i += string_length(raw, i, i + 2);
        continue;
      }
      if (c == 0xc2 && second < 0xa0) {
        fits = emit_hex(second);  // other C1 controls: U+0080..U+009F as Neovim shows them
      } else {
        fits = emit(raw.substr(i, n), 1);
      }
      if (fits) i += n;
    } else {
      fits = emit_hex(c);
      ++i;
    }
    if (!fits) {
      out += "…";
      break;
    }
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

}  // namespace toolhost::results
