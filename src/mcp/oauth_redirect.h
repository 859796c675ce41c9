#pragma once
// The browser's way back from the authorization server: a listener on 127.0.0.1 at a port the
// system picks (RFC 8252 7.3), for one sign-in. It answers the one redirect that carries this
// sign-in's `state`, then closes; a redirect with another state ends the sign-in refused (it
// did not come from the authorization request toolhost made). It runs its own libuv loop, on
// the sign-in's worker thread, and can start the browser itself ($BROWSER) on that loop.

#include <uv.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

namespace toolhost::mcp {

struct RedirectOutcome {
  std::string code;
  std::string iss;    // RFC 9207's, when the authorization server sent it
  std::string error;  // no code: why (the server's error, a wrong state, the timeout)
};

class LoopbackRedirect {
 public:
  LoopbackRedirect();
  ~LoopbackRedirect();
  LoopbackRedirect(const LoopbackRedirect&) = delete;
  LoopbackRedirect& operator=(const LoopbackRedirect&) = delete;

  // Listens on 127.0.0.1:0; false with why.
  bool listen(std::string& error);
  // http://127.0.0.1:PORT/callback
  std::string redirect_uri() const;
  // Starts `browser` (a shell command; "" for none) with `url` as its argument, then waits for
  // the redirect carrying `state`, `timeout_ms`, or cancel().
  RedirectOutcome wait(const std::string& state, uint64_t timeout_ms, const std::string& browser,
                       const std::string& url);
  // From any thread: the wait ends with "sign-in cancelled".
  void cancel();

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace toolhost::mcp
