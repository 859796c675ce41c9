#pragma once
// The independent client of P1.
#include <sys/types.h>
#include <uv.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "rpc/peer.h"

namespace toolhost::bench {

// Its own thread, loop and socket connection to Neovim: sends nvim_eval("1") every 5 ms while
// probing (never waiting for the previous answer, so a stall shows in every request it
// delays), and samples Neovim's and the host's RSS every 20 ms throughout.
class Probe {
 public:
  struct Rtt {
    uint64_t sent;
    double ms;
  };
  struct Rss {
    uint64_t at;
    uint64_t nvim_kb, host_kb;
  };

  Probe(const std::string& socket, pid_t nvim) : socket_(socket), nvim_(nvim) {}
  ~Probe() { stop(); }

  void start() {
    thread_ = std::thread([this] { run(); });
  }
  void stop() {
    if (!thread_.joinable()) return;
    while (!ready_) std::this_thread::yield();
    uv_async_send(&stop_);
    thread_.join();
  }
  void probing(bool on) { probing_ = on; }
  void host(pid_t pid) { host_ = pid; }

  std::vector<Rtt> rtts(uint64_t from, uint64_t to) {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<Rtt> out;
    for (const Rtt& r : rtts_) {
      if (r.sent >= from && r.sent <= to) out.push_back(r);
    }
    return out;
  }
  std::vector<Rss> rss(uint64_t from, uint64_t to) {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<Rss> out;
    for (const Rss& r : rss_) {
      if (r.at >= from && r.at <= to) out.push_back(r);
    }
    return out;
  }
  size_t unanswered() const { return unanswered_; }

 private:
  void run();

  std::string socket_;
  pid_t nvim_;
  std::atomic<pid_t> host_{0};
  std::atomic<bool> probing_{false};
  std::atomic<bool> ready_{false};
  std::atomic<size_t> unanswered_{0};
  std::thread thread_;
  uv_loop_t loop_{};
  uv_async_t stop_{};
  uv_timer_t eval_timer_{}, rss_timer_{};
  std::unique_ptr<rpc::Peer> peer_;
  std::mutex mutex_;
  std::vector<Rtt> rtts_;
  std::vector<Rss> rss_;
};

}  // namespace toolhost::bench
