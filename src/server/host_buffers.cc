// The host's attached buffers: attaching (the buffer is read in slices by BufferReads),
// detaching, and the methods that act on a buffer once the host has read it.
#include "base/log.h"
#include "server/args.h"
#include "server/host.h"

namespace toolhost::server {
namespace {

// Neovim's handles are ints: it reads 2^32 as 0, the current buffer (found by rpc_from_lua).
bool is_buffer_number(int64_t buf) {
  return buf > 0 && buf <= INT32_MAX;
}

}  // namespace

session::Session* Host::session(int64_t buf) {
  auto it = sessions_.find(buf);
  return it == sessions_.end() ? nullptr : it->second.get();
}

Host::Reply Host::attach(const nlohmann::json& raw) {
  Args args(raw);
  int64_t buf = args.integer_or("buf", 0);
  std::string root = args.string_or("root", ".");
  std::string name = args.string_or("name", "");
  std::string filetype = args.string_or("filetype", "");
  bool auto_run = args.boolean_or("auto_run", false);
  std::string run_key = args.string_or("run_key", "");
  std::string reject_key = args.string_or("reject_key", "");
  if (!args.ok()) return core::error(args.error());
  if (!is_buffer_number(buf)) return core::error("`buf` must be a buffer number");
  session::Session* s = session(buf);
  if (s) {
    // Detached while a job ran: the session kept its jobs; it reads the buffer anew.
    if (!s->detached()) return ok();
    s->reattach(std::move(root), std::move(name));
  } else {
    session::Context context{feedback_, engine_,  config_, tools_,    &lua_tools_,
                             loop_,     &agents_, &mcp_,   &quickfix_};
    auto fresh = std::make_unique<session::Session>(context, buf, std::move(root), std::move(name));
    s = fresh.get();
    sessions_.emplace(buf, std::move(fresh));
  }
  s->set_filetype(filetype);
  s->set_auto_run(auto_run);
  s->set_keys(std::move(run_key), std::move(reject_key));
  reads_.start(buf);
  return ok();
}

void Host::loaded(int64_t buf, std::vector<std::string> lines) {
  session::Session* s = session(buf);
  if (s && !s->detached()) s->load(std::move(lines));
}

void Host::attach_failed(int64_t buf, const std::string& error) {
  log::warn("attaching buffer " + std::to_string(buf) + " failed: " + error);
  if (session::Session* s = session(buf)) s->detach();  // answers what waited on it
  sessions_.erase(buf);
}

Host::Reply Host::detach(const nlohmann::json& raw) {
  Args args(raw);
  int64_t buf = args.integer_or("buf", 0);
  if (!args.ok()) return core::error(args.error());
  if (!is_buffer_number(buf)) return core::error("`buf` must be a buffer number");
  own_detaches_.insert(buf);
  api_.buf_detach(buf, [this, buf](const std::string&, bool) { own_detaches_.erase(buf); });
  forget(buf);
  return ok();
}

void Host::forget(int64_t buf) {
  reads_.cancel(buf);
  auto it = sessions_.find(buf);
  if (it == sessions_.end()) return;
  // Running jobs keep going and still reach the job list; their session stays until then.
  agents_.forget(buf);
  it->second->detach();
  if (!it->second->has_active()) sessions_.erase(it);
}

Host::Reply Host::with_session(const nlohmann::json& raw,
                               std::function<void(session::Session&)> action) {
  Args args(raw);
  int64_t buf = args.integer_or("buf", 0);
  if (!args.ok()) return core::error(args.error());
  session::Session* s = session(buf);
  if (!s || s->detached()) return core::error("this buffer is not attached");
  s->when_ready([this, s, action = std::move(action)] {
    action(*s);
    update_ticker();
  });
  return ok();
}

Host::Reply Host::mirror(const nlohmann::json& raw) {
  Args args(raw);
  int64_t buf = args.integer_or("buf", 0);
  if (!args.ok()) return core::error(args.error());
  session::Session* s = session(buf);
  if (!s || s->detached()) return core::error("this buffer is not attached");
  nlohmann::json reply = s->parse_check();
  reply["lines"] = s->mirror();
  return reply;
}

}  // namespace toolhost::server
