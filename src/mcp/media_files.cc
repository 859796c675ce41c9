#include "mcp/media_files.h"

#include <fstream>

#include "base/fs.h"

namespace toolhost::mcp {
namespace {

std::string extension(const std::string& mime_type) {
  static const std::pair<const char*, const char*> known[] = {
      {"image/png", "png"},   {"image/jpeg", "jpg"},    {"image/gif", "gif"},
      {"image/webp", "webp"}, {"image/svg+xml", "svg"}, {"audio/wav", "wav"},
      {"audio/x-wav", "wav"}, {"audio/mpeg", "mp3"},    {"audio/ogg", "ogg"}};
  for (const auto& [mime, ext] : known) {
    if (mime_type == mime) return ext;
  }
  return "bin";
}

int sextet(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+' || c == '-') return 62;
  if (c == '/' || c == '_') return 63;
  return -1;
}

}  // namespace

bool decode_base64(const std::string& text, std::string& out) {
  out.clear();
  unsigned buffer = 0;
  int bits = 0;
  bool padding = false;
  for (char c : text) {
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
    if (c == '=') {
      padding = true;
      continue;
    }
    const int value = sextet(c);
    if (value < 0 || padding) return false;
    buffer = (buffer << 6) | static_cast<unsigned>(value);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((buffer >> bits) & 0xff));
    }
  }
  return true;
}

void save_media(CallOutcome& outcome, const std::string& dir, const std::string& prefix) {
  if (dir.empty() || outcome.media.empty()) return;
  base::make_dirs(dir);
  size_t from = 0;
  for (size_t i = 0; i < outcome.media.size(); ++i) {
    const Media& media = outcome.media[i];
    const std::string note = "[" + media.type + " " +
                             (media.mime_type.empty() ? "?" : media.mime_type) + ", " +
                             std::to_string(media.bytes()) + " bytes]";
    std::string added;
    std::string data;
    if (!decode_base64(media.base64, data)) {
      added = ": not base64, not saved";
    } else {
      const std::string path =
          dir + "/" + prefix + "-" + std::to_string(i + 1) + "." + extension(media.mime_type);
      std::ofstream file(path, std::ios::binary | std::ios::trunc);
      file.write(data.data(), static_cast<std::streamsize>(data.size()));
      added = file.good() ? ": " + path : ": cannot write " + path;
    }
    const size_t at = outcome.text.find(note, from);
    if (at == std::string::npos) continue;
    outcome.text.insert(at + note.size() - 1, added);
    from = at + note.size() + added.size();
  }
}

}  // namespace toolhost::mcp
