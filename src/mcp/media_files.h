#pragma once
// Images and audio a tool returned, saved in the cache directory (SPEC 13.3): the result text
// shows each by its path, so the user (and a model that can read files) can open it.

#include <string>

#include "mcp/call_outcome.h"

namespace toolhost::mcp {

// Saves each of `outcome.media` as {dir}/{prefix}-{n}.{ext} and adds its path to the note that
// stands for it in outcome.text ("[image image/png, 68 bytes: /…/x-1.png]"). Data that is not
// base64, or a file that cannot be written, keeps its note and gets the reason instead.
void save_media(CallOutcome& outcome, const std::string& dir, const std::string& prefix);

// `text` decoded; false when it is not base64 (whitespace is skipped).
bool decode_base64(const std::string& text, std::string& out);

}  // namespace toolhost::mcp
