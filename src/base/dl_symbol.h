#pragma once
// A library loaded with dlopen() on first use (libcurl, libcrypto): found under one of its
// names, its functions resolved into a table of pointers, each missing name added to a list the
// caller's error message names.

#include <dlfcn.h>

#include <string>
#include <vector>

namespace toolhost::base {

// The first of `names` that dlopen() loads (RTLD_NOW | RTLD_LOCAL); nullptr with the first
// failure's reason in `why`.
inline void* dl_open_first(const std::vector<std::string>& names, std::string& why) {
  for (const std::string& name : names) {
    if (void* library = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL)) return library;
    if (why.empty()) why = dlerror();
  }
  return nullptr;
}

template <typename Function>
bool dl_symbol(void* library, const char* name, Function& slot, std::string& missing) {
  slot = reinterpret_cast<Function>(dlsym(library, name));
  if (!slot) missing += (missing.empty() ? "" : ", ") + std::string(name);
  return slot != nullptr;
}

}  // namespace toolhost::base
