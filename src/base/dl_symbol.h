#pragma once
// A library loaded with dlopen() on first use (libcurl, libcrypto): its functions resolved into
// a table of pointers, each missing name added to a list the caller's error message names.

#include <dlfcn.h>

#include <string>

namespace toolhost::base {

template <typename Function>
bool dl_symbol(void* library, const char* name, Function& slot, std::string& missing) {
  slot = reinterpret_cast<Function>(dlsym(library, name));
  if (!slot) missing += (missing.empty() ? "" : ", ") + std::string(name);
  return slot != nullptr;
}

}  // namespace toolhost::base
