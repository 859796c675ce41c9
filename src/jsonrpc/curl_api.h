#pragma once
// The libcurl functions the HTTP transport calls, through one table. With TOOLHOST_CURL_DLOPEN
// (the plugin's build, whose libc is shared when libcurl's archive cannot be linked) libcurl is
// loaded by dlopen() when the first HttpTransport starts: a host that never reaches an HTTP
// server never maps libcurl and the thirty libraries it needs (their pages took the idle host
// from 4 MB resident to 10, SPEC 9's P7). Elsewhere the table holds the linked functions.

#include <curl/curl.h>

#include <string>

namespace toolhost::jsonrpc {

struct CurlApi {
  CURLcode (*global_init)(long flags);
  CURL* (*easy_init)();
  void (*easy_cleanup)(CURL* easy);
  CURLcode (*easy_setopt)(CURL* easy, CURLoption option, ...);
  CURLcode (*easy_getinfo)(CURL* easy, CURLINFO info, ...);
  const char* (*easy_strerror)(CURLcode code);
  CURLM* (*multi_init)();
  CURLMcode (*multi_cleanup)(CURLM* multi);
  CURLMcode (*multi_setopt)(CURLM* multi, CURLMoption option, ...);
  CURLMcode (*multi_add_handle)(CURLM* multi, CURL* easy);
  CURLMcode (*multi_remove_handle)(CURLM* multi, CURL* easy);
  CURLMcode (*multi_assign)(CURLM* multi, curl_socket_t socket, void* data);
  CURLMcode (*multi_socket_action)(CURLM* multi, curl_socket_t socket, int events, int* running);
  CURLMsg* (*multi_info_read)(CURLM* multi, int* left);
  curl_slist* (*slist_append)(curl_slist* list, const char* text);
  void (*slist_free_all)(curl_slist* list);
  // Blocking: only off the loop (the OAuth sign-in's worker thread, mcp/oauth_http.h).
  CURLcode (*easy_perform)(CURL* easy);
};

// Loads libcurl (once) and runs curl_global_init; false with the reason when it cannot.
bool load_curl(std::string& error);
// The table; only after load_curl() succeeded (always, without TOOLHOST_CURL_DLOPEN).
const CurlApi& curl();

}  // namespace toolhost::jsonrpc
