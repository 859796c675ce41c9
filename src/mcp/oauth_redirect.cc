#include "mcp/oauth_redirect.h"

#include <map>
#include <memory>
#include <set>

#include "mcp/oauth_text.h"

namespace toolhost::mcp {
namespace {

constexpr size_t kMaxRedirectRequest = 16 * 1024;  // a redirect's request line and headers

std::string redirect_page(int status, const std::string& message) {
  std::string body = "<!doctype html><meta charset=utf-8><title>toolhost</title><p>" + message +
                     "</p>\n";
  return "HTTP/1.1 " + std::to_string(status) + (status == 200 ? " OK" : " Bad Request") +
         "\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
}

}  // namespace

// One browser connection (named outside the anonymous namespace: Impl holds them).
struct RedirectPeer {
  uv_tcp_t handle;
  LoopbackRedirect::Impl* owner;
  std::string request;
  bool answered = false;
};

struct RedirectReply {
  uv_write_t write;
  std::string text;
  RedirectPeer* peer;
};


struct LoopbackRedirect::Impl {
  uv_loop_t loop{};
  uv_tcp_t server{};
  uv_timer_t timer{};
  uv_async_t cancel{};
  uv_process_t browser{};
  bool browser_running = false;
  int port = 0;
  bool listening = false;
  bool done = false;
  std::string state;
  RedirectOutcome outcome;
  std::set<RedirectPeer*> peers;

  void finish(RedirectOutcome result) {
    if (done) return;
    done = true;
    outcome = std::move(result);
  }

  void close_peer(RedirectPeer* peer) {
    if (!peers.erase(peer)) return;
    uv_close(reinterpret_cast<uv_handle_t*>(&peer->handle),
             [](uv_handle_t* h) { delete static_cast<RedirectPeer*>(h->data); });
  }

  void answer(RedirectPeer* peer, int status, const std::string& message) {
    peer->answered = true;
    uv_read_stop(reinterpret_cast<uv_stream_t*>(&peer->handle));
    auto* reply = new RedirectReply{{}, redirect_page(status, message), peer};
    uv_buf_t buf = uv_buf_init(reply->text.data(), static_cast<unsigned>(reply->text.size()));
    reply->write.data = reply;
    int failed = uv_write(&reply->write, reinterpret_cast<uv_stream_t*>(&peer->handle), &buf, 1,
                          [](uv_write_t* w, int) {
                            auto* r = static_cast<RedirectReply*>(w->data);
                            r->peer->owner->close_peer(r->peer);
                            delete r;
                          });
    if (failed) {
      delete reply;
      close_peer(peer);
    }
  }

  // One whole request head: the redirect, or something else (a favicon) that gets a 400.
  void handle(RedirectPeer* peer) {
    const std::string& request = peer->request;
    size_t line_end = request.find("\r\n");
    std::string line = request.substr(0, line_end);
    size_t first = line.find(' ');
    size_t second = line.find(' ', first + 1);
    std::string target = first == std::string::npos ? "" : line.substr(first + 1, second - first - 1);
    std::string path = target.substr(0, target.find('?'));
    if (line.rfind("GET ", 0) != 0 || path != "/callback") {
      return answer(peer, 400, "Not a sign-in redirect.");
    }
    size_t query_at = target.find('?');
    auto fields = form_decode(query_at == std::string::npos ? "" : target.substr(query_at + 1));
    if (fields["state"] != state) {
      answer(peer, 400, "This redirect is not from the sign-in toolhost started; it was refused.");
      return finish({"", "", "the redirect carried another sign-in's state: refused"});
    }
    if (!fields["error"].empty()) {
      std::string why = "the authorization server refused: " + fields["error"].substr(0, 100);
      if (!fields["error_description"].empty()) why += " (" + fields["error_description"].substr(0, 200) + ")";
      answer(peer, 400, "Sign-in failed; toolhost says why.");
      return finish({"", "", why});
    }
    if (fields["code"].empty()) {
      answer(peer, 400, "The redirect carried no authorization code.");
      return finish({"", "", "the redirect carried no authorization code"});
    }
    answer(peer, 200, "Signed in. You can close this window and return to toolhost.");
    finish({fields["code"], fields["iss"], ""});
  }

  static void on_connection(uv_stream_t* server, int status) {
    auto* self = static_cast<Impl*>(server->data);
    if (status < 0) return;
    auto* peer = new RedirectPeer{{}, self, "", false};
    uv_tcp_init(&self->loop, &peer->handle);
    peer->handle.data = peer;
    if (uv_accept(server, reinterpret_cast<uv_stream_t*>(&peer->handle)) != 0) {
      uv_close(reinterpret_cast<uv_handle_t*>(&peer->handle),
               [](uv_handle_t* h) { delete static_cast<RedirectPeer*>(h->data); });
      return;
    }
    self->peers.insert(peer);
    uv_read_start(
        reinterpret_cast<uv_stream_t*>(&peer->handle),
        [](uv_handle_t*, size_t, uv_buf_t* buf) {
          static thread_local char block[4096];
          *buf = uv_buf_init(block, sizeof block);
        },
        [](uv_stream_t* stream, ssize_t n, const uv_buf_t* buf) {
          auto* peer = static_cast<RedirectPeer*>(stream->data);
          Impl* owner = peer->owner;
          if (n < 0) return owner->close_peer(peer);
          peer->request.append(buf->base, static_cast<size_t>(n));
          if (peer->request.find("\r\n\r\n") != std::string::npos) return owner->handle(peer);
          if (peer->request.size() > kMaxRedirectRequest) owner->answer(peer, 400, "Request too large.");
        });
  }

  void start_browser(const std::string& command, const std::string& url) {
    std::string script = command + " \"$1\"";
    const char* args[] = {"/bin/sh", "-c", script.c_str(), "toolhost-browser", url.c_str(), nullptr};
    uv_process_options_t options{};
    options.file = "/bin/sh";
    options.args = const_cast<char**>(args);
    options.exit_cb = [](uv_process_t* p, int64_t, int) {
      static_cast<Impl*>(p->data)->browser_running = false;
      uv_close(reinterpret_cast<uv_handle_t*>(p), nullptr);
    };
    uv_stdio_container_t stdio[3];
    stdio[0].flags = UV_IGNORE;
    stdio[1].flags = UV_IGNORE;  // the browser's chatter is not toolhost's output
    stdio[2].flags = UV_INHERIT_FD;
    stdio[2].data.fd = 2;
    options.stdio = stdio;
    options.stdio_count = 3;
    browser.data = this;
    if (uv_spawn(&loop, &browser, &options) == 0) browser_running = true;
  }
};

LoopbackRedirect::LoopbackRedirect() : impl_(std::make_unique<Impl>()) {
  uv_loop_init(&impl_->loop);
  uv_async_init(&impl_->loop, &impl_->cancel, [](uv_async_t* a) {
    static_cast<Impl*>(a->data)->finish({"", "", "sign-in cancelled"});
  });
  impl_->cancel.data = impl_.get();
  uv_timer_init(&impl_->loop, &impl_->timer);
  impl_->timer.data = impl_.get();
}

LoopbackRedirect::~LoopbackRedirect() {
  for (RedirectPeer* peer : std::set<RedirectPeer*>(impl_->peers)) impl_->close_peer(peer);
  if (impl_->listening) uv_close(reinterpret_cast<uv_handle_t*>(&impl_->server), nullptr);
  uv_close(reinterpret_cast<uv_handle_t*>(&impl_->timer), nullptr);
  uv_close(reinterpret_cast<uv_handle_t*>(&impl_->cancel), nullptr);
  // A browser still running is left to itself: its handle closes when it exits, or now.
  if (impl_->browser_running) {
    uv_close(reinterpret_cast<uv_handle_t*>(&impl_->browser), nullptr);
    impl_->browser_running = false;
  }
  uv_run(&impl_->loop, UV_RUN_DEFAULT);
  uv_loop_close(&impl_->loop);
}

bool LoopbackRedirect::listen(std::string& error) {
  uv_tcp_init(&impl_->loop, &impl_->server);
  impl_->server.data = impl_.get();
  impl_->listening = true;
  sockaddr_in address{};
  uv_ip4_addr("127.0.0.1", 0, &address);
  int status = uv_tcp_bind(&impl_->server, reinterpret_cast<const sockaddr*>(&address), 0);
  if (status == 0) {
    status = uv_listen(reinterpret_cast<uv_stream_t*>(&impl_->server), 8, Impl::on_connection);
  }
  if (status != 0) {
    error = std::string("cannot listen on 127.0.0.1 for the sign-in's redirect: ") + uv_strerror(status);
    return false;
  }
  sockaddr_storage bound{};
  int length = sizeof bound;
  uv_tcp_getsockname(&impl_->server, reinterpret_cast<sockaddr*>(&bound), &length);
  impl_->port = ntohs(reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  return true;
}

std::string LoopbackRedirect::redirect_uri() const {
  return "http://127.0.0.1:" + std::to_string(impl_->port) + "/callback";
}

RedirectOutcome LoopbackRedirect::wait(const std::string& state, uint64_t timeout_ms,
                                       const std::string& browser, const std::string& url) {
  impl_->state = state;
  uv_timer_start(
      &impl_->timer,
      [](uv_timer_t* t) {
        static_cast<Impl*>(t->data)->finish({"", "", "no redirect came back from the browser in time"});
      },
      timeout_ms, 0);
  if (!browser.empty()) impl_->start_browser(browser, url);
  while (!impl_->done) uv_run(&impl_->loop, UV_RUN_ONCE);
  uv_timer_stop(&impl_->timer);
  // The browser's page is answered before the listener goes; idle connections are not waited for.
  for (RedirectPeer* peer : std::set<RedirectPeer*>(impl_->peers)) {
    if (!peer->answered) impl_->close_peer(peer);
  }
  while (!impl_->peers.empty()) uv_run(&impl_->loop, UV_RUN_ONCE);
  return impl_->outcome;
}

void LoopbackRedirect::cancel() {
  uv_async_send(&impl_->cancel);
}

}  // namespace toolhost::mcp
