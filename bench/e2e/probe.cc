#include "probe.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <nlohmann/json.hpp>

#include "measure.h"

namespace toolhost::bench {

using nlohmann::json;

void Probe::run() {
  uv_loop_init(&loop_);
  uv_async_init(&loop_, &stop_, [](uv_async_t* async) {
    auto* self = static_cast<Probe*>(async->data);
    for (uv_handle_t* h : {reinterpret_cast<uv_handle_t*>(&self->eval_timer_),
                           reinterpret_cast<uv_handle_t*>(&self->rss_timer_),
                           reinterpret_cast<uv_handle_t*>(&self->stop_)}) {
      uv_close(h, nullptr);
    }
    if (self->peer_) self->peer_->close();
  });
  stop_.data = this;
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, socket_.c_str(), sizeof addr.sun_path - 1);
  if (fd >= 0 && ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
    peer_ = std::make_unique<rpc::Peer>(&loop_);
    peer_->open(fd, ::fcntl(fd, F_DUPFD_CLOEXEC, 3));
  } else {
    std::cerr << "probe: cannot connect to " << socket_ << ": " << std::strerror(errno) << "\n";
  }
  uv_timer_init(&loop_, &eval_timer_);
  eval_timer_.data = this;
  uv_timer_start(
      &eval_timer_,
      [](uv_timer_t* t) {
        auto* self = static_cast<Probe*>(t->data);
        if (!self->probing_ || !self->peer_ || !self->peer_->is_open()) return;
        uint64_t sent = now_ns();
        ++self->unanswered_;
        self->peer_->request("nvim_eval", json::array({"1"}),
                             [self, sent](const rpc::Response& response) {
                               --self->unanswered_;
                               if (!response.ok()) return;
                               double ms = static_cast<double>(now_ns() - sent) / 1e6;
                               std::lock_guard<std::mutex> lock(self->mutex_);
                               self->rtts_.push_back({sent, ms});
                             });
      },
      5, 5);
  uv_timer_init(&loop_, &rss_timer_);
  rss_timer_.data = this;
  uv_timer_start(
      &rss_timer_,
      [](uv_timer_t* t) {
        auto* self = static_cast<Probe*>(t->data);
        Rss sample{now_ns(), rss_kb(self->nvim_), rss_kb(self->host_)};
        std::lock_guard<std::mutex> lock(self->mutex_);
        self->rss_.push_back(sample);
      },
      0, 20);
  ready_ = true;
  uv_run(&loop_, UV_RUN_DEFAULT);
  peer_.reset();
  uv_loop_close(&loop_);
}

}  // namespace toolhost::bench
