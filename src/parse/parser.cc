#include "parse/parser.h"

#include "parse/incremental.h"

namespace toolhost::parse {

// One code path for full and incremental parses, so that they cannot disagree.
ParseResult parse(const std::vector<std::string>& lines, const Options& options) {
  IncrementalParser parser(options);
  parser.reset(lines);
  return parser.result();
}

}  // namespace toolhost::parse
