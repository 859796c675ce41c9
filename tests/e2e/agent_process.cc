#include "e2e/agent_process.h"

#include <csignal>
#include <stdexcept>

namespace toolhost::e2e {

using json = nlohmann::json;

AgentProcess::AgentProcess(NvimHarness& nvim, std::string cwd, std::vector<std::string> args)
    : nvim_(nvim) {
  if (cwd.empty()) cwd = nvim.temp_dir();
  uv_loop_t* loop = nvim.loop();
  for (uv_pipe_t* pipe : {&in_, &out_, &err_}) {
    uv_pipe_init(loop, pipe, 0);
    pipe->data = this;
  }
  std::vector<std::string> argv_strings = {toolhost_binary(), "mcp", "serve"};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& arg : argv_strings) argv.push_back(arg.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_strings = nvim.environment();
  std::vector<char*> env;
  for (auto& variable : env_strings) env.push_back(variable.data());
  env.push_back(nullptr);

  uv_stdio_container_t stdio[3];
  stdio[0].flags = static_cast<uv_stdio_flags>(UV_CREATE_PIPE | UV_READABLE_PIPE);
  stdio[0].data.stream = reinterpret_cast<uv_stream_t*>(&in_);
  stdio[1].flags = static_cast<uv_stdio_flags>(UV_CREATE_PIPE | UV_WRITABLE_PIPE);
  stdio[1].data.stream = reinterpret_cast<uv_stream_t*>(&out_);
  stdio[2].flags = static_cast<uv_stdio_flags>(UV_CREATE_PIPE | UV_WRITABLE_PIPE);
  stdio[2].data.stream = reinterpret_cast<uv_stream_t*>(&err_);
  uv_process_options_t options{};
  options.file = argv[0];
  options.args = argv.data();
  options.env = env.data();
  options.cwd = cwd.c_str();
  options.stdio_count = 3;
  options.stdio = stdio;
  options.exit_cb = [](uv_process_t* process, int64_t status, int signal) {
    auto* self = static_cast<AgentProcess*>(process->data);
    self->exited_ = true;
    self->exit_status_ = signal ? 128 + signal : status;
  };
  process_.data = this;
  open_handles_ = 3;
  if (int rc = uv_spawn(loop, &process_, &options)) {
    for (uv_pipe_t* pipe : {&in_, &out_, &err_}) close_handle(reinterpret_cast<uv_handle_t*>(pipe));
    nvim_.run_until([this] { return open_handles_ == 0; }, kDeadline, "the pipes to close");
    throw std::runtime_error(std::string("cannot start toolhost mcp serve: ") + uv_strerror(rc));
  }
  ++open_handles_;  // the process handle

  auto alloc = [](uv_handle_t*, size_t suggested, uv_buf_t* buf) {
    buf->base = new char[suggested];
    buf->len = suggested;
  };
  uv_read_start(reinterpret_cast<uv_stream_t*>(&out_), alloc,
                [](uv_stream_t* stream, ssize_t n, const uv_buf_t* buf) {
                  auto* self = static_cast<AgentProcess*>(stream->data);
                  if (n > 0) self->received_bytes(buf->base, static_cast<size_t>(n));
                  if (n < 0) uv_read_stop(stream);
                  delete[] buf->base;
                });
  uv_read_start(reinterpret_cast<uv_stream_t*>(&err_), alloc,
                [](uv_stream_t* stream, ssize_t n, const uv_buf_t* buf) {
                  auto* self = static_cast<AgentProcess*>(stream->data);
                  if (n > 0) self->log_.append(buf->base, static_cast<size_t>(n));
                  if (n < 0) uv_read_stop(stream);
                  delete[] buf->base;
                });
}

AgentProcess::~AgentProcess() {
  if (!exited_) uv_process_kill(&process_, SIGKILL);
  try {
    nvim_.run_until([this] { return exited_; }, kDeadline, "toolhost mcp serve to exit");
  } catch (const std::exception&) {
  }
  close_input();
  close_handle(reinterpret_cast<uv_handle_t*>(&out_));
  close_handle(reinterpret_cast<uv_handle_t*>(&err_));
  close_handle(reinterpret_cast<uv_handle_t*>(&process_));
  try {
    nvim_.run_until([this] { return open_handles_ == 0; }, kDeadline, "the agent's handles");
  } catch (const std::exception&) {
  }
}

void AgentProcess::close_handle(uv_handle_t* handle) {
  if (uv_is_closing(handle)) return;
  uv_close(handle,
           [](uv_handle_t* closed) { --static_cast<AgentProcess*>(closed->data)->open_handles_; });
}

void AgentProcess::wait(const std::function<bool()>& done, std::chrono::milliseconds deadline,
                        const std::string& what) {
  try {
    nvim_.run_until(done, deadline, what);
  } catch (const std::exception& timeout) {
    throw std::runtime_error(std::string(timeout.what()) + "\ntoolhost mcp serve's log:\n" + log_);
  }
}

void AgentProcess::write_line(const json& message) {
  if (!input_open_) throw std::runtime_error("the agent's input is closed");
  auto* write = new Write;
  write->data = message.dump() + "\n";
  uv_buf_t buf = uv_buf_init(write->data.data(), static_cast<unsigned>(write->data.size()));
  int rc = uv_write(&write->request, reinterpret_cast<uv_stream_t*>(&in_), &buf, 1,
                    [](uv_write_t* request, int) { delete reinterpret_cast<Write*>(request); });
  if (rc != 0) {
    delete write;
    throw std::runtime_error(std::string("cannot write to the agent's server: ") + uv_strerror(rc));
  }
}

void AgentProcess::received_bytes(const char* data, size_t size) {
  partial_.append(data, size);
  size_t newline;
  while ((newline = partial_.find('\n')) != std::string::npos) {
    std::string line = partial_.substr(0, newline);
    partial_.erase(0, newline + 1);
    json message = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (message.is_discarded()) {
      log_ += "[test] stdout line is not JSON: " + line + "\n";
    } else if (message.is_object() && message.contains("id") && message["id"].is_number_integer() &&
               !message.contains("method")) {
      const int64_t id = message["id"].get<int64_t>();
      responses_[id] = std::move(message);
    } else if (message.is_object()) {
      notifications_.push_back(std::move(message));
    } else {
      log_ += "[test] stdout line is not a JSON object: " + line + "\n";
    }
  }
}

json AgentProcess::initialize(const std::string& name) {
  json response = wait_response(
      send_request("initialize", {{"protocolVersion", "2025-06-18"},
                                  {"capabilities", json::object()},
                                  {"clientInfo", {{"name", name}, {"version", "1.0"}}}}));
  if (!response.contains("result")) {
    throw std::runtime_error("initialize failed: " + response.dump() + "\n" + log_);
  }
  send_notification("notifications/initialized", json::object());
  return response["result"];
}

int64_t AgentProcess::send_request(const std::string& method, const json& params) {
  int64_t id = next_id_++;
  write_line({{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}});
  return id;
}

void AgentProcess::send_notification(const std::string& method, const json& params) {
  write_line({{"jsonrpc", "2.0"}, {"method", method}, {"params", params}});
}

int64_t AgentProcess::call(const std::string& tool, const json& arguments,
                           const json& progress_token) {
  json params = {{"name", tool}, {"arguments", arguments}};
  if (!progress_token.is_null()) params["_meta"] = {{"progressToken", progress_token}};
  return send_request("tools/call", params);
}

json AgentProcess::wait_response(int64_t id, std::chrono::milliseconds deadline) {
  wait([&] { return answered(id) || exited_; }, deadline,
       "the answer to request " + std::to_string(id));
  if (!answered(id)) {
    throw std::runtime_error("toolhost mcp serve exited before answering request " +
                             std::to_string(id) + ":\n" + log_);
  }
  return responses_[id];
}

json AgentProcess::wait_result(int64_t id, std::chrono::milliseconds deadline) {
  json response = wait_response(id, deadline);
  if (!response.contains("result")) throw std::runtime_error("not a result: " + response.dump());
  const json& result = response["result"];
  std::string text;
  for (const auto& item : result.value("content", json::array())) {
    if (item.value("type", "") == "text") text += item.value("text", "");
  }
  return {{"text", text}, {"isError", result.value("isError", false)}};
}

json AgentProcess::wait_notification(const std::string& method,
                                     std::chrono::milliseconds deadline) {
  auto find = [&] {
    for (auto it = notifications_.begin(); it != notifications_.end(); ++it) {
      if ((*it).value("method", "") == method) return it;
    }
    return notifications_.end();
  };
  wait([&] { return find() != notifications_.end(); }, deadline,
       "the agent's notification " + method);
  auto it = find();
  json params = (*it).value("params", json::object());
  notifications_.erase(it);
  return params;
}

std::vector<json> AgentProcess::received(const std::string& method) const {
  std::vector<json> found;
  for (const auto& message : notifications_) {
    if (message.value("method", "") == method) found.push_back(message.value("params", json()));
  }
  return found;
}

void AgentProcess::round_trip() {
  json response = wait_response(send_request("ping", json::object()));
  if (!response.contains("result")) throw std::runtime_error("ping: " + response.dump());
}

void AgentProcess::close_input() {
  if (!input_open_) return;
  input_open_ = false;
  close_handle(reinterpret_cast<uv_handle_t*>(&in_));
}

int64_t AgentProcess::wait_exit(std::chrono::milliseconds deadline) {
  wait([this] { return exited_; }, deadline, "toolhost mcp serve to exit");
  return exit_status_;
}

}  // namespace toolhost::e2e
