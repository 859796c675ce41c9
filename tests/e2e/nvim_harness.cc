#include "e2e/nvim_harness.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>

#include "rpc/convert.h"
#include "unit/test_loop.h"

namespace toolhost::e2e {
namespace fs = std::filesystem;

const std::string& toolhost_binary() {
  static const std::string binary = [] {
    const char* other = std::getenv("TOOLHOST_TEST_HOST");
    return std::string(other && *other ? other : TOOLHOST_BINARY);
  }();
  return binary;
}

bool (*NvimHarness::test_failed)() = nullptr;

std::string NvimHarness::binary() {
  const char* chosen = std::getenv("TOOLHOST_TEST_NVIM");
  return chosen && *chosen ? chosen : "nvim";
}

NvimHarness::NvimHarness(const nlohmann::json& setup_opts, const NvimHarness* share_dirs,
                         bool runtime_dir) {
  char pattern[] = "/tmp/toolhost-e2e-XXXXXX";
  if (!::mkdtemp(pattern)) {
    throw std::runtime_error(std::string("cannot create a temporary directory ") + pattern + ": " +
                             std::strerror(errno));
  }
  temp_dir_ = pattern;
  xdg_root_ = share_dirs ? share_dirs->xdg_root_ : temp_dir_;
  uv_loop_init(&loop_);

  int to_nvim[2], from_nvim[2];
  if (::pipe2(to_nvim, O_CLOEXEC) || ::pipe2(from_nvim, O_CLOEXEC)) {
    throw std::runtime_error("pipe2 failed");
  }
  // Not the outer make's state either: under `make test` its MAKEFLAGS (--no-print-directory)
  // reached the jobs' own make, which then printed no "Entering directory" lines.
  auto inherited = [](const char* variable) {
    for (const char* name : {"XDG_RUNTIME_DIR=", "MAKEFLAGS=", "MFLAGS=", "MAKELEVEL="}) {
      if (std::strncmp(variable, name, std::strlen(name)) == 0) return false;
    }
    return true;
  };
  for (char** e = environ; *e; ++e) {
    if (inherited(*e)) env_.emplace_back(*e);
  }
  for (const char* name :
       {"XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"}) {
    env_.push_back(std::string(name) + "=" + xdg_root_ + "/" + name);
  }
  if (runtime_dir) {
    // Private like a login session's: the host refuses a socket directory others can enter.
    std::string runtime = xdg_root_ + "/XDG_RUNTIME_DIR";
    if (::mkdir(runtime.c_str(), 0700) != 0 && errno != EEXIST) {
      throw std::runtime_error("cannot create " + runtime + ": " + std::strerror(errno));
    }
    env_.push_back("XDG_RUNTIME_DIR=" + runtime);
  }
  std::vector<char*> env;
  for (auto& s : env_) env.push_back(s.data());
  env.push_back(nullptr);
  const std::string nvim = binary();
  const char* args[] = {nvim.c_str(), "--embed", "--headless", "--clean", "-n", nullptr};
  uv_stdio_container_t stdio[3];
  stdio[0].flags = UV_INHERIT_FD;
  stdio[0].data.fd = to_nvim[0];
  stdio[1].flags = UV_INHERIT_FD;
  stdio[1].data.fd = from_nvim[1];
  stdio[2].flags = UV_INHERIT_FD;
  stdio[2].data.fd = 2;
  uv_process_options_t options{};
  options.file = nvim.c_str();
  options.args = const_cast<char**>(args);
  options.env = env.data();
  options.cwd = temp_dir_.c_str();
  options.stdio_count = 3;
  options.stdio = stdio;
  options.exit_cb = [](uv_process_t* p, int64_t, int) {
    static_cast<NvimHarness*>(p->data)->exited_ = true;
  };
  process_.data = this;
  if (int rc = uv_spawn(&loop_, &process_, &options)) {
    throw std::runtime_error("cannot start " + nvim + ": " + uv_strerror(rc));
  }
  ::close(to_nvim[0]);
  ::close(from_nvim[1]);
  peer_ = std::make_unique<rpc::Peer>(&loop_);
  peer_->open(from_nvim[0], to_nvim[1]);
  // Notifications from Neovim to this client: kept in order for wait_for().
  for (const char* method :
       {"ToolhostJobStarted", "ToolhostJobFinished", "ToolhostAllDone", "diagnostics", "event"}) {
    listen(method);
  }

  channel_ = request("nvim_get_api_info", nlohmann::json::array())[0].get<int64_t>();
  // Auto-run is off unless a test turns it on: a test that edits a buffer must not start
  // calls by the idle rule behind its back. So is the host's start after Neovim's
  // (serve.at_startup): a test starts the host when it needs one, at a point it chose
  // (agents_startup_test.cc tests the start at startup itself). The sandbox is off unless a
  // test turns it on: the tests of the approval flow hold `echo` for approval, which the
  // sandbox would run unasked (sandbox_test.cc tests it).
  nlohmann::json opts = {{"binary", toolhost_binary()},
                         {"log_level", "debug"},
                         {"auto_run", false},
                         {"sandbox", "off"},
                         {"serve", {{"at_startup", false}}}};
  opts.merge_patch(setup_opts);  // serve's other keys join at_startup
  lua(R"(
    local root, opts = ...
    vim.opt.rtp:prepend(root)
    vim.cmd("runtime plugin/toolhost.lua")
    assert(require("toolhost").setup(opts))
  )",
      {TOOLHOST_SOURCE_DIR, opts});
}

NvimHarness::~NvimHarness() {
  if (peer_ && peer_->is_open()) {
    peer_->notify("nvim_command", {"qa!"});
  }
  try {
    run_until([this] { return exited_; }, std::chrono::seconds(10), "nvim to exit");
  } catch (const std::exception&) {
    uv_process_kill(&process_, SIGKILL);
    run_until([this] { return exited_; }, std::chrono::seconds(5), "nvim to die");
  }
  peer_->close();
  uv_close(reinterpret_cast<uv_handle_t*>(&process_), nullptr);
  uv_run(&loop_, UV_RUN_DEFAULT);
  uv_loop_close(&loop_);
  if (test_failed && test_failed() && xdg_root_ == temp_dir_) print_host_log();
  std::error_code ec;
  fs::remove_all(temp_dir_, ec);
}

void NvimHarness::print_host_log() const {
  // A failure that shows only under CI's load is understood from the host's debug log, which
  // goes with the temporary directory: its end goes to the test's output first.
  constexpr size_t kTail = 80;
  std::ifstream in(xdg_root_ + "/XDG_CACHE_HOME/nvim/toolhost/toolhost.log");
  std::deque<std::string> tail;
  for (std::string line; std::getline(in, line);) {
    tail.push_back(std::move(line));
    if (tail.size() > kTail) tail.pop_front();
  }
  std::fprintf(stderr, "--- the host's log, its last %zu lines ---\n", tail.size());
  for (const auto& line : tail) std::fprintf(stderr, "%s\n", line.c_str());
}

void NvimHarness::run_until(const std::function<bool()>& done, std::chrono::milliseconds deadline,
                            const std::string& what) {
  if (!testing::run_until(&loop_, done, static_cast<uint64_t>(deadline.count()))) {
    throw std::runtime_error("timed out waiting for " + what);
  }
}

nlohmann::json NvimHarness::request(const std::string& method, const nlohmann::json& params,
                                    std::chrono::milliseconds deadline) {
  // The answer may come after the deadline, when this frame is gone: it lands in a slot the
  // callback shares, not on the stack.
  struct Answer {
    bool answered = false;
    std::string error;
    nlohmann::json result;
  };
  auto answer = std::make_shared<Answer>();
  peer_->request(method, params, [answer](const rpc::Response& response) {
    answer->answered = true;
    answer->error = response.error;
    if (response.ok()) answer->result = rpc::to_json(response.result);
  });
  run_until([&] { return answer->answered; }, deadline, method);
  if (!answer->error.empty()) throw std::runtime_error(method + ": " + answer->error);
  return std::move(answer->result);
}

nlohmann::json NvimHarness::lua(const std::string& code, const nlohmann::json& args,
                                std::chrono::milliseconds deadline) {
  return request("nvim_exec_lua", {code, args}, deadline);
}

void NvimHarness::command(const std::string& cmd) {
  request("nvim_command", nlohmann::json::array({cmd}));
}

nlohmann::json NvimHarness::wait_for(const std::string& method,
                                     std::chrono::milliseconds deadline) {
  auto find = [&] {
    for (auto it = notifications_.begin(); it != notifications_.end(); ++it) {
      if (it->first == method) return it;
    }
    return notifications_.end();
  };
  run_until([&] { return find() != notifications_.end(); }, deadline, "notification " + method);
  auto it = find();
  nlohmann::json params = std::move(it->second);
  notifications_.erase(it);
  return params;
}

void NvimHarness::listen(const std::string& method) {
  peer_->on_notification(method, [this, method](const rpc::Message& message) {
    nlohmann::json params = rpc::to_json(message.params);
    notifications_.emplace_back(method, params.is_array() && !params.empty() ? params[0] : params);
  });
}

void NvimHarness::forward_user_event(const std::string& pattern) {
  listen(pattern);
  lua(R"(
    local chan, pattern = ...
    vim.api.nvim_create_autocmd("User", { pattern = pattern, callback = function()
      vim.rpcnotify(chan, pattern, vim.g.toolhost_event)
    end })
  )",
      {channel_, pattern});
}

void NvimHarness::forward_insert_mode() {
  listen("mode");
  lua(R"(
    local chan = ...
    vim.api.nvim_create_autocmd({ "InsertEnter", "InsertLeave" }, { callback = function(args)
      vim.rpcnotify(chan, "mode", args.event)
    end })
  )",
      {channel_});
}

void NvimHarness::forward_diagnostics() {
  lua(R"(
    local chan = ...
    vim.api.nvim_create_autocmd("DiagnosticChanged", { callback = function(args)
      vim.rpcnotify(chan, "diagnostics", vim.diagnostic.get(args.buf))
    end })
  )",
      nlohmann::json::array({channel_}));
}

void NvimHarness::after_each_batch(const std::string& check) {
  lua(R"(
    local chan, source = ...
    local check = assert(loadstring("return " .. source))()
    local ui = require("toolhost.ui")
    -- Once each list the host sent (the batches that came together) is applied, all slices.
    local previous = ui.after_list
    ui.after_list = function(batches)
      if previous then previous(batches) end
      for _, batch in ipairs(batches) do
        check(chan, batch)
      end
    end
    check(chan, nil)
  )",
      nlohmann::json::array({channel_, check}));
}

void NvimHarness::forward_notify() {
  listen("notify");
  lua(R"(
    local chan = ...
    vim.notify = function(msg, level) vim.rpcnotify(chan, "notify", { msg = msg, level = level }) end
  )",
      nlohmann::json::array({channel_}));
}

int64_t NvimHarness::open_fixture(const std::string& fixture, const std::string& as_name) {
  fs::path target = fs::path(temp_dir_) / as_name;
  fs::copy_file(fs::path(TOOLHOST_FIXTURES) / fixture, target,
                fs::copy_options::overwrite_existing);
  command("edit " + target.string());
  return lua("return vim.api.nvim_get_current_buf()").get<int64_t>();
}

std::vector<std::string> NvimHarness::lines(int64_t buf) {
  return request("nvim_buf_get_lines", {buf, 0, -1, false}).get<std::vector<std::string>>();
}

std::string NvimHarness::checkhealth(const std::string& name) {
  // 0.10 gave the report a new look ("name ~" headings, "- OK text", emoji before OK from
  // 0.11, info as a bare "- text"):
  // the tests read one form, 0.7's ("## name", "- OK: text", "- INFO: text"). Told apart by the
  // headings, not by the version.
  return lua(R"(
    vim.cmd("checkhealth " .. ...)
    local lines = vim.api.nvim_buf_get_lines(0, 0, -1, false)
    local new_look = false
    for _, line in ipairs(lines) do
      if line:match("^%S.* ~$") then new_look = true end
    end
    local out = {}
    for _, line in ipairs(lines) do
      if new_look then
        local heading = line:match("^(%S.*) ~$")
        -- 0.10: "- OK text"; 0.11+: "- ✅ OK text".
        local kind, text = line:match("^%- (%u+) (.*)$")
        if not kind then kind, text = line:match("^%- %S+ (%u+) (.*)$") end
        if heading then
          line = "## " .. heading
        elseif kind == "OK" or kind == "WARNING" or kind == "ERROR" then
          line = "- " .. kind .. ": " .. text
        elseif line:match("^%- ") then
          line = "- INFO: " .. line:sub(3)
        end
      end
      out[#out + 1] = line .. "\n"
    end
    return table.concat(out)
  )",
             {name})
      .get<std::string>();
}

}  // namespace toolhost::e2e
