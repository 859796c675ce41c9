#pragma once
// tests/fixtures/http_fake_server.mjs (Node's `http` module on a free port of 127.0.0.1), started
// once per test binary: null from get() without Node.js.
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <string>

namespace toolhost::testing {

// Its stdin closing (the test binary's exit) ends it.
class HttpFakeServer {
 public:
  static HttpFakeServer* get() {
    static HttpFakeServer* server = new HttpFakeServer();
    return server->port_ > 0 ? server : nullptr;
  }
  std::string url(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(port_) + path;
  }

 private:
  HttpFakeServer() {
    int in[2], out[2];
    // Close-on-exec: the other tests' children must not hold the server's stdin open.
    if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0) return;
    pid_t pid = fork();
    if (pid == 0) {
      dup2(in[0], 0);
      dup2(out[1], 1);
      close(in[1]);
      close(out[0]);
      execlp("node", "node", TOOLHOST_FIXTURES "/http_fake_server.mjs", nullptr);
      _exit(127);
    }
    close(in[0]);
    close(out[1]);
    FILE* output = fdopen(out[0], "r");  // the one line before any loop runs
    if (pid > 0 && output && fscanf(output, "PORT %d", &port_) != 1) port_ = 0;
    if (output) fclose(output);
    // in[1] stays open for the process's life; at exit it closes and the server leaves.
  }
  int port_ = 0;
};

}  // namespace toolhost::testing
