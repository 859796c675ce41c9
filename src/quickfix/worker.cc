#include "quickfix/worker.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>

#include "base/log.h"
#include "rpc/convert.h"

namespace toolhost::quickfix {
namespace {

constexpr uint64_t kKillAfterMs = 500;  // after its stdin closed, an nvim that did not exit

double ms_since(uint64_t ns) {
  return static_cast<double>(uv_hrtime() - ns) / 1e6;
}

}  // namespace

Worker::Worker(uv_loop_t* loop, std::string nvim, std::string prelude)
    : loop_(loop), nvim_(std::move(nvim)), prelude_(std::move(prelude)) {
  uv_timer_init(loop_, &kill_timer_);
  kill_timer_.data = this;
}

Worker::~Worker() {
  *alive_ = false;
  if (process_open_) log::error("quickfix: Worker destroyed before its process ended");
}

std::string Worker::start() {
  if (nvim_.empty()) return "no Neovim binary known to start the errorformat worker";
  int to_nvim[2], from_nvim[2];
  if (::pipe2(to_nvim, O_CLOEXEC) != 0) return "pipe2 failed";
  if (::pipe2(from_nvim, O_CLOEXEC) != 0) {
    ::close(to_nvim[0]);
    ::close(to_nvim[1]);
    return "pipe2 failed";
  }
  const char* args[] = {nvim_.c_str(), "--embed", "--headless", "-u",   "NONE",
                        "-i",          "NONE",    "-n",         nullptr};
  uv_stdio_container_t stdio[3];
  stdio[0].flags = UV_INHERIT_FD;
  stdio[0].data.fd = to_nvim[0];
  stdio[1].flags = UV_INHERIT_FD;
  stdio[1].data.fd = from_nvim[1];
  stdio[2].flags = UV_IGNORE;
  uv_process_options_t options{};
  options.file = nvim_.c_str();
  options.args = const_cast<char**>(args);
  options.stdio_count = 3;
  options.stdio = stdio;
  options.exit_cb = on_exit;
  process_.data = this;
  spawned_ns_ = uv_hrtime();
  int rc = uv_spawn(loop_, &process_, &options);
  ::close(to_nvim[0]);
  ::close(from_nvim[1]);
  if (rc != 0) {
    ::close(to_nvim[1]);
    ::close(from_nvim[0]);
    // uv_spawn leaves a handle to close even when it fails; until it is closed, requests
    // get this error (exec_lua).
    process_open_ = true;
    uv_close(reinterpret_cast<uv_handle_t*>(&process_), [](uv_handle_t* handle) {
      static_cast<Worker*>(handle->data)->process_open_ = false;
    });
    last_error_ = "cannot start " + nvim_ + ": " + uv_strerror(rc);
    return last_error_;
  }
  process_open_ = true;
  child_alive_ = true;
  last_error_.clear();
  pid_ = process_.pid;
  ++starts_;
  peer_ = std::make_unique<rpc::Peer>(loop_);
  if (int open_rc = peer_->open(from_nvim[0], to_nvim[1])) {
    stopped(std::string("cannot talk to the worker: ") + uv_strerror(open_rc));
    return "cannot talk to the errorformat worker";
  }
  peer_->on_close([this, alive = std::weak_ptr<bool>(alive_)](const std::string& reason) {
    if (alive.lock()) stopped(reason);
  });
  // Its functions first: every request after it finds them (one pipe keeps the order).
  peer_->request("nvim_exec_lua", nlohmann::json::array({prelude_, nlohmann::json::array()}),
                 [this, alive = std::weak_ptr<bool>(alive_)](const rpc::Response& response) {
                   if (!alive.lock()) return;
                   if (!response.ok()) {
                     log::error("quickfix: the worker's prelude failed: " + response.error);
                     return;
                   }
                   startup_ms_ = ms_since(spawned_ns_);
                   log::info("quickfix: errorformat worker " + std::to_string(pid_) + " ready in " +
                             std::to_string(startup_ms_) + " ms");
                 });
  return {};
}

void Worker::exec_lua(const std::string& code, const nlohmann::json& args, Done done) {
  if (closing_) return done("the errorformat worker is closed", nullptr);
  if (!peer_ || !peer_->is_open()) {
    // The last one's process handle is still closing (it died a moment ago): this request
    // fails, the next one starts a new worker.
    if (process_open_) {
      return done(last_error_.empty() ? "the errorformat worker is restarting" : last_error_,
                  nullptr);
    }
    std::string error = start();
    if (!error.empty()) return done(error, nullptr);
  }
  peer_->request("nvim_exec_lua", nlohmann::json::array({code, args}),
                 [done = std::move(done)](const rpc::Response& response) {
                   if (!response.ok()) return done(response.error, nullptr);
                   done("", rpc::to_json(response.result));
                 });
}

void Worker::stopped(const std::string& reason) {
  if (!peer_) return;
  last_error_ = "the errorformat worker stopped: " + reason;
  if (reason != "closed") log::warn("quickfix: errorformat worker gone: " + reason);
  retired_.erase(std::remove_if(retired_.begin(), retired_.end(),
                                [](const auto& peer) { return peer->is_closed(); }),
                 retired_.end());
  // Retired before it is closed: its close calls this again (on_close), which finds no Peer.
  retired_.push_back(std::move(peer_));
  retired_.back()->close(reason);
  if (child_alive_) {
    // Its stdin is closed now: a healthy nvim exits at once; one that does not is killed.
    uv_timer_start(
        &kill_timer_,
        [](uv_timer_t* timer) {
          auto* self = static_cast<Worker*>(timer->data);
          if (self->child_alive_) uv_process_kill(&self->process_, SIGKILL);
        },
        kKillAfterMs, 0);
  }
}

void Worker::on_exit(uv_process_t* process, int64_t, int) {
  auto* self = static_cast<Worker*>(process->data);
  self->child_alive_ = false;
  uv_close(reinterpret_cast<uv_handle_t*>(process),
           [](uv_handle_t* handle) { static_cast<Worker*>(handle->data)->process_open_ = false; });
  if (self->peer_) self->stopped("the worker exited");
}

void Worker::close(std::function<void()> done) {
  closing_ = true;
  on_closed_ = std::move(done);
  if (peer_) stopped("closed");
  uv_timer_stop(&kill_timer_);
  if (child_alive_) uv_process_kill(&process_, SIGKILL);
  // One timer watches the handles close, then closes itself: the last close callback of the
  // Worker is the timer's.
  uv_timer_start(&kill_timer_, on_close_tick, 1, 1);
}

void Worker::on_close_tick(uv_timer_t* timer) {
  auto* self = static_cast<Worker*>(timer->data);
  if (self->process_open_) return;
  for (const auto& peer : self->retired_) {
    if (!peer->is_closed()) return;
  }
  self->retired_.clear();
  uv_timer_stop(timer);
  uv_close(reinterpret_cast<uv_handle_t*>(timer), [](uv_handle_t* handle) {
    auto* worker = static_cast<Worker*>(handle->data);
    if (auto done = std::move(worker->on_closed_)) done();
  });
}

}  // namespace toolhost::quickfix
