#include "jsonrpc/curl_api.h"

#include <mutex>

#ifdef TOOLHOST_CURL_DLOPEN
#include <dlfcn.h>

#include "base/dl_symbol.h"
#endif

namespace toolhost::jsonrpc {
namespace {

CurlApi table{};

#ifdef TOOLHOST_CURL_DLOPEN
using base::dl_symbol;

std::string open_library() {
  std::string why;
  void* library = base::dl_open_first(
      {"libcurl.so.4", "libcurl.so", "libcurl.4.dylib", "libcurl.dylib"}, why);
  if (!library) return "cannot load libcurl (" + why + "); install libcurl (Debian: libcurl4)";
  std::string missing;
  dl_symbol(library, "curl_global_init", table.global_init, missing);
  dl_symbol(library, "curl_easy_init", table.easy_init, missing);
  dl_symbol(library, "curl_easy_cleanup", table.easy_cleanup, missing);
  dl_symbol(library, "curl_easy_setopt", table.easy_setopt, missing);
  dl_symbol(library, "curl_easy_getinfo", table.easy_getinfo, missing);
  dl_symbol(library, "curl_easy_strerror", table.easy_strerror, missing);
  dl_symbol(library, "curl_multi_init", table.multi_init, missing);
  dl_symbol(library, "curl_multi_cleanup", table.multi_cleanup, missing);
  dl_symbol(library, "curl_multi_setopt", table.multi_setopt, missing);
  dl_symbol(library, "curl_multi_add_handle", table.multi_add_handle, missing);
  dl_symbol(library, "curl_multi_remove_handle", table.multi_remove_handle, missing);
  dl_symbol(library, "curl_multi_assign", table.multi_assign, missing);
  dl_symbol(library, "curl_multi_socket_action", table.multi_socket_action, missing);
  dl_symbol(library, "curl_multi_info_read", table.multi_info_read, missing);
  dl_symbol(library, "curl_slist_append", table.slist_append, missing);
  dl_symbol(library, "curl_slist_free_all", table.slist_free_all, missing);
  dl_symbol(library, "curl_easy_perform", table.easy_perform, missing);
  if (!missing.empty()) return "the libcurl found lacks " + missing;
  return "";
}
#else
std::string open_library() {
  table = CurlApi{&curl_global_init,         &curl_easy_init,           &curl_easy_cleanup,
                  &curl_easy_setopt,         &curl_easy_getinfo,        &curl_easy_strerror,
                  &curl_multi_init,          &curl_multi_cleanup,       &curl_multi_setopt,
                  &curl_multi_add_handle,    &curl_multi_remove_handle, &curl_multi_assign,
                  &curl_multi_socket_action, &curl_multi_info_read,     &curl_slist_append,
                  &curl_slist_free_all,      &curl_easy_perform};
  return "";
}
#endif

std::once_flag loaded;
std::string load_error;

}  // namespace

bool load_curl(std::string& error) {
  std::call_once(loaded, [] {
    load_error = open_library();
    if (load_error.empty() && table.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
      load_error = "libcurl cannot start";
    }
  });
  error = load_error;
  return load_error.empty();
}

const CurlApi& curl() {
#ifndef TOOLHOST_CURL_DLOPEN
  std::string ignored;
  load_curl(ignored);
#endif
  return table;
}

}  // namespace toolhost::jsonrpc
