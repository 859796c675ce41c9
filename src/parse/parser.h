#pragma once
// Pure parsing: no I/O, no Neovim.

#include <string>
#include <vector>

#include "parse/types.h"

namespace toolhost::parse {

ParseResult parse(const std::vector<std::string>& lines, const Options& options);

}  // namespace toolhost::parse
