// The host's methods that act on a chat buffer's calls (SPEC 4: :ToolRun, :ToolReject,
// :ToolRunAll, :ToolCancel, a reply's end, a chat plugin's structured call, a job run again):
// each reads its arguments, then hands the buffer's session what to do once it is ready.
#include "server/args.h"
#include "server/host.h"

namespace toolhost::server {

Host::Reply Host::run(const nlohmann::json& raw) {
  Args args(raw);
  int row = static_cast<int>(args.integer_or("row", 0));
  bool force = args.boolean_or("force", false);
  std::string call_id = args.string_or("call_id", "");
  if (!args.ok()) return core::error(args.error());
  return with_session(raw, [row, force, call_id](session::Session& s) {
    // Lua's answer to a re-run prompt names the call: the cursor may have moved since.
    if (!call_id.empty() && s.rerun(call_id)) return;
    s.run_at(row, force);
  });
}

Host::Reply Host::reject(const nlohmann::json& raw) {
  Args args(raw);
  int row = static_cast<int>(args.integer_or("row", 0));
  std::string reason = args.string_or("reason", "");
  if (!args.ok()) return core::error(args.error());
  return with_session(raw, [row, reason](session::Session& s) { s.reject_at(row, reason); });
}

Host::Reply Host::run_all(const nlohmann::json& raw) {
  Args args(raw);
  bool parallel = args.boolean_or("parallel", false);
  std::vector<std::string> ids;
  if (args.has("ids")) {
    const nlohmann::json& list = args.raw()["ids"];
    if (!list.is_array()) return core::error("`ids` must be a list of call ids");
    for (const auto& id : list) {
      if (!id.is_string()) return core::error("`ids` must be a list of call ids");
      ids.push_back(id.get<std::string>());
    }
  }
  if (!args.ok()) return core::error(args.error());
  return with_session(raw, [ids, parallel](session::Session& s) { s.run_all(ids, parallel); });
}

Host::Reply Host::run_all_plan(const nlohmann::json& raw) {
  Args args(raw);
  int64_t buf = args.integer_or("buf", 0);
  if (!args.ok()) return core::error(args.error());
  session::Session* s = session(buf);
  if (!s || s->detached()) return core::error("this buffer is not attached");
  return nlohmann::json{{"calls", s->run_all_plan()}};
}

Host::Reply Host::assistant_done(const nlohmann::json& raw) {
  return with_session(raw, [](session::Session& s) { s.reply_complete(false, 0); });
}

Host::Reply Host::idle(const nlohmann::json& raw) {
  Args args(raw);
  int first_row = static_cast<int>(args.integer_or("first_row", 0));
  if (!args.ok()) return core::error(args.error());
  return with_session(raw, [first_row](session::Session& s) { s.reply_complete(true, first_row); });
}

Host::Reply Host::submit(const nlohmann::json& raw) {
  Args args(raw);
  session::Session::Submission submission;
  submission.id = args.string_or("id", "");
  submission.name = args.string("name");
  submission.arguments = args.raw().value("arguments", nlohmann::json::object());
  submission.row = static_cast<int>(args.integer_or("row", 0));
  submission.end_row = static_cast<int>(args.integer_or("end_row", int64_t{submission.row} + 1));
  submission.write_result = args.boolean_or("write_result", false);
  if (!args.ok()) return core::error(args.error());
  return with_session(raw, [submission = std::move(submission)](session::Session& s) mutable {
    s.submit(std::move(submission));
  });
}

Host::Reply Host::rerun(const nlohmann::json& raw) {
  Args args(raw);
  std::string id = args.string("id");
  if (!args.ok()) return core::error(args.error());
  const jobs::JobInfo* job = engine_.get(id);
  if (!job) return core::error("no job " + id);
  for (auto& [buf, s] : sessions_) {
    if (s->detached() || s->name() != job->spec.buffer_name) continue;
    std::string call_id = job->spec.call_id;
    s->when_ready([this, s = s.get(), call_id] {
      if (!s->rerun(call_id))
        feedback_.notify("toolhost: that tool call is no longer in its buffer", "warn");
      update_ticker();
    });
    return nlohmann::json{{"rerun", true}};
  }
  return core::error("the buffer of " + id + " is not attached");
}

Host::Reply Host::cancel(const nlohmann::json& raw) {
  Args args(raw);
  if (args.has("id")) {
    std::string id = args.string("id");
    if (!args.ok()) return core::error(args.error());
    if (!engine_.cancel(id)) feedback_.notify("toolhost: no running job " + id, "warn");
    return ok();
  }
  int64_t buf = args.integer_or("buf", 0);
  int row = static_cast<int>(args.integer_or("row", 0));
  if (!args.ok()) return core::error(args.error());
  session::Session* s = session(buf);
  if (!s || !s->cancel_at(row)) feedback_.notify("No running tool call under the cursor", "warn");
  return ok();
}

}  // namespace toolhost::server
