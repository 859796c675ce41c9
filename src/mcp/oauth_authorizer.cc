#include "mcp/oauth_authorizer.h"

#include "mcp/oauth_flow.h"

namespace toolhost::mcp {

struct OAuthAuthorizer::Work {
  uv_work_t request;
  std::shared_ptr<OAuthAuthorizer> self;  // alive until the work is back on the loop
  OAuthFlowInput input;
  OAuthFlowResult result;
};

std::shared_ptr<OAuthAuthorizer> OAuthAuthorizer::create(uv_loop_t* loop, Options options) {
  return std::shared_ptr<OAuthAuthorizer>(new OAuthAuthorizer(loop, std::move(options)));
}

OAuthAuthorizer::OAuthAuthorizer(uv_loop_t* loop, Options options)
    : loop_(loop), options_(std::move(options)), announced_(new uv_async_t) {
  std::string error;
  if (!options_.state_dir.empty()) {
    auto record = load_oauth_record(options_.state_dir, options_.server, error);
    if (record && record->server_url == options_.server_url) access_token_ = record->access_token;
  }
  uv_async_init(loop_, announced_, [](uv_async_t* handle) {
    auto* self = static_cast<OAuthAuthorizer*>(handle->data);
    std::pair<std::string, std::string> said;
    {
      std::lock_guard<std::mutex> lock(self->mutex_);
      said.swap(self->announcement_);
    }
    if (said.first.empty()) return;
    self->pending_url_ = said.first;
    if (self->options_.on_sign_in) self->options_.on_sign_in(said.first, said.second);
  });
  announced_->data = this;
  uv_unref(reinterpret_cast<uv_handle_t*>(announced_));  // it alone keeps no loop running
}

OAuthAuthorizer::~OAuthAuthorizer() {
  uv_close(reinterpret_cast<uv_handle_t*>(announced_),
           [](uv_handle_t* handle) { delete reinterpret_cast<uv_async_t*>(handle); });
}

std::string OAuthAuthorizer::authorization() {
  return access_token_.empty() ? "" : "Bearer " + access_token_;
}

void OAuthAuthorizer::challenged(long status, const std::string& www_authenticate, int,
                                 Done done) {
  constexpr uint64_t kFailureHoldsMs = 10'000;
  if (!running_ && !last_failure_.empty() && uv_now(loop_) - failed_at_ms_ < kFailureHoldsMs) {
    return done(last_failure_);
  }
  waiting_.push_back(std::move(done));
  if (!running_) start(status, www_authenticate);
}

void OAuthAuthorizer::sign_in(Done done) {
  waiting_.push_back(std::move(done));
  if (!running_) start(0, "");
}

void OAuthAuthorizer::cancel() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (redirect_) redirect_->cancel();
}

void OAuthAuthorizer::start(long status, const std::string& challenge) {
  running_ = true;
  auto* work = new Work;
  work->request.data = work;
  work->self = shared_from_this();
  OAuthFlowInput& input = work->input;
  input.server = options_.server;
  input.server_url = options_.server_url;
  input.config = options_.config;
  input.state_dir = options_.state_dir;
  input.status = status;
  input.challenge = challenge;
  input.browser = options_.browser;
  input.redirect = std::make_shared<LoopbackRedirect>();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    redirect_ = input.redirect;
  }
  // Called on the worker: handed to the loop through the async handle.
  input.announce = [this](const std::string& url, const std::string& host) {
    std::lock_guard<std::mutex> lock(mutex_);
    announcement_ = {url, host};
    uv_async_send(announced_);
  };
  uv_queue_work(
      loop_, &work->request,
      [](uv_work_t* request) {
        auto* work = static_cast<Work*>(request->data);
        work->result = run_oauth_flow(work->input);
        work->input.redirect.reset();  // its loop closes on the thread that ran it
      },
      [](uv_work_t* request, int) {
        std::unique_ptr<Work> work(static_cast<Work*>(request->data));
        work->self->finished(work->result.error, work->result.warning, work->result.record);
      });
}

void OAuthAuthorizer::finished(const std::string& error, const std::string& warning,
                               const OAuthRecord& record) {
  running_ = false;
  pending_url_.clear();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    redirect_.reset();
  }
  if (error.empty()) access_token_ = record.access_token;
  std::string said = error.empty() ? "" : "sign-in to " + options_.server + " failed: " + error;
  last_failure_ = said;
  failed_at_ms_ = uv_now(loop_);
  if (options_.on_signed_in) options_.on_signed_in(error.empty() ? warning : said);
  std::vector<Done> waiting;
  waiting.swap(waiting_);
  for (Done& done : waiting) {
    if (error.empty()) {
      done(std::nullopt);
    } else {
      done(said);
    }
  }
}

}  // namespace toolhost::mcp
