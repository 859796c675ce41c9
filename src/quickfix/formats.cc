#include "quickfix/formats.h"

namespace toolhost::quickfix::formats {

// "In file included from" and "from" lines name a file and a line but are no error: dropped
// before the generic patterns can take them (as the default 'errorformat' does).
#define TOOLHOST_GCC                                                         \
  "%-GIn file included from %f:%l:%c:,%-GIn file included from %f:%l:%c\\,," \
  "%-G%*[ ]from %f:%l:%c:,%-G%*[ ]from %f:%l:%c\\,,"                         \
  "%f:%l:%c: %t%*[^:]: %m,%f:%l: %t%*[^:]: %m"

const std::string_view kGcc = TOOLHOST_GCC;
const std::string_view kMake =
    "%D%*\\a[%*\\d]: Entering directory %*[`']%f',%X%*\\a[%*\\d]: Leaving directory %*[`']%f',"
    "%D%*\\a: Entering directory %*[`']%f',%X%*\\a: Leaving directory %*[`']%f'," TOOLHOST_GCC;
const std::string_view kPytest = "%f:%l: in %m,%f:%l: %m";
const std::string_view kVimgrep = "%f:%l:%c:%m";
const std::string_view kGrep = "%f:%l:%m";

#undef TOOLHOST_GCC

}  // namespace toolhost::quickfix::formats
