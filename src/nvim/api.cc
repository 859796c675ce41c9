#include "nvim/api.h"

#include <optional>
#include <string_view>

#include "rpc/convert.h"

namespace toolhost::nvim {
namespace {

// A list of lines, decoded from msgpack directly: a slice or an event may be a megabyte.
std::vector<std::string> lines_from(const msgpack::object& list) {
  std::vector<std::string> lines;
  if (list.type != msgpack::type::ARRAY) return lines;
  lines.reserve(list.via.array.size);
  for (uint32_t i = 0; i < list.via.array.size; ++i) {
    const msgpack::object& line = list.via.array.ptr[i];
    if (line.type == msgpack::type::STR || line.type == msgpack::type::BIN) {
      lines.emplace_back(line.via.str.ptr, line.via.str.size);
    } else {
      lines.emplace_back();
    }
  }
  return lines;
}

std::optional<int64_t> integer(const msgpack::object& value) {
  if (value.type == msgpack::type::POSITIVE_INTEGER) return static_cast<int64_t>(value.via.u64);
  if (value.type == msgpack::type::NEGATIVE_INTEGER) return value.via.i64;
  return std::nullopt;
}

// The value of `key` in a map, or nullptr.
const msgpack::object* field(const msgpack::object& map, std::string_view key) {
  if (map.type != msgpack::type::MAP) return nullptr;
  for (uint32_t i = 0; i < map.via.map.size; ++i) {
    const msgpack::object_kv& kv = map.via.map.ptr[i];
    if (kv.key.type == msgpack::type::STR &&
        std::string_view(kv.key.via.str.ptr, kv.key.via.str.size) == key) {
      return &kv.val;
    }
  }
  return nullptr;
}

}  // namespace

// Read from the msgpack answer: converted to JSON, its hundreds of function descriptions took
// 0.3 MB of heap at start that an idle host kept resident (SPEC 9, P7).
ApiInfo parse_api_info(const msgpack::object& result) {
  ApiInfo info;
  if (result.type != msgpack::type::ARRAY || result.via.array.size < 2) return info;
  info.channel = integer(result.via.array.ptr[0]).value_or(0);
  const msgpack::object* version = field(result.via.array.ptr[1], "version");
  if (!version) return info;
  auto number = [&](std::string_view key) {
    const msgpack::object* value = field(*version, key);
    return value ? integer(*value).value_or(0) : 0;
  };
  info.api_level = number("api_level");
  info.version = std::to_string(number("major")) + "." + std::to_string(number("minor")) + "." +
                 std::to_string(number("patch"));
  return info;
}

Api::Api(rpc::Peer& peer) : peer_(peer) {}

void Api::call(const std::string& method, const nlohmann::json& params, Done<nlohmann::json> done) {
  send_waiting_batches();
  send(method, params, std::move(done));
}

void Api::send(const std::string& method, const nlohmann::json& params, Done<nlohmann::json> done) {
  peer_.request(method, params, [done = std::move(done)](const rpc::Response& response) {
    if (!done) return;
    if (!response.ok()) return done(response.error, nullptr);
    done("", rpc::to_json(response.result));
  });
}

void Api::get_api_info(Done<ApiInfo> done) {
  send_waiting_batches();
  peer_.request("nvim_get_api_info", nlohmann::json::array(),
                [done = std::move(done)](const rpc::Response& response) {
                  if (!response.ok()) return done(response.error, ApiInfo{});
                  done("", parse_api_info(response.result));
                });
}

void Api::buf_attach(int64_t buf, Done<bool> done) {
  call("nvim_buf_attach", {buf, false, nlohmann::json::object()},
       [done = std::move(done)](const std::string& error, const nlohmann::json& result) {
         if (done) done(error, result.is_boolean() && result.get<bool>());
       });
}

void Api::buf_line_count(int64_t buf, Done<int64_t> done) {
  call("nvim_buf_line_count", {buf},
       [done = std::move(done)](const std::string& error, const nlohmann::json& result) {
         done(error, result.is_number_integer() ? result.get<int64_t>() : int64_t{-1});
       });
}

void Api::buf_detach(int64_t buf, Done<bool> done) {
  call("nvim_buf_detach", {buf},
       [done = std::move(done)](const std::string& error, const nlohmann::json& result) {
         if (done) done(error, result.is_boolean() && result.get<bool>());
       });
}

void Api::buf_get_lines(int64_t buf, int64_t start, int64_t end,
                        Done<std::vector<std::string>> done) {
  send_waiting_batches();
  peer_.request("nvim_buf_get_lines", nlohmann::json::array({buf, start, end, false}),
                [done = std::move(done)](const rpc::Response& response) {
                  if (!response.ok()) return done(response.error, {});
                  done("", lines_from(response.result));
                });
}

void Api::exec_lua(const std::string& code, const nlohmann::json& args, Done<nlohmann::json> done) {
  call("nvim_exec_lua", {code, args.is_null() ? nlohmann::json::array() : args}, std::move(done));
}

void Api::exec_lua_batched(const std::string& code, nlohmann::json batch,
                           Done<nlohmann::json> done) {
  batches_->code = code;
  batches_->done = std::move(done);
  batches_->waiting.push_back(std::move(batch));
  if (batches_->in_flight == 0) send_waiting_batches();
}

void Api::send_waiting_batches() {
  Batches& b = *batches_;
  if (b.waiting.empty()) return;
  nlohmann::json list = std::move(b.waiting);
  b.waiting = nlohmann::json::array();
  ++b.in_flight;
  std::weak_ptr<Batches> weak = batches_;
  rpc::Peer* peer = &peer_;
  send("nvim_exec_lua", {b.code, nlohmann::json::array({std::move(list)})},
       [this, weak, peer](const std::string& error, const nlohmann::json& result) {
         auto batches = weak.lock();
         if (!batches) return;  // the Api is gone
         if (error.empty() && result.is_object() && result.value("pending", false)) {
           ++batches->pending;
           return;
         }
         --batches->in_flight;
         if (batches->done) batches->done(error, result);
         if (batches->in_flight == 0 && peer->is_open()) send_waiting_batches();
       });
}

void Api::batches_applied(const nlohmann::json& result) {
  Batches& b = *batches_;
  if (b.pending == 0) return;  // not ours: a list of the host this one replaced
  --b.pending;
  --b.in_flight;
  if (b.done) b.done("", result);
  if (b.in_flight == 0 && peer_.is_open()) send_waiting_batches();
}

void Api::on_lines(std::function<void(LinesEvent&)> handler) {
  // Decoded from msgpack directly: the initial event carries the whole buffer.
  peer_.on_notification(
      "nvim_buf_lines_event", [handler = std::move(handler)](const rpc::Message& message) {
        const msgpack::object& params = message.params;
        if (params.type != msgpack::type::ARRAY || params.via.array.size < 6) return;
        const msgpack::object* p = params.via.array.ptr;
        LinesEvent event;
        event.buf = rpc::to_handle(p[0]).value_or(0);
        event.changedtick = p[1].type == msgpack::type::NIL ? 0 : rpc::to_handle(p[1]).value_or(0);
        event.first = rpc::to_handle(p[2]).value_or(0);
        event.last = rpc::to_handle(p[3]).value_or(0);
        event.lines = lines_from(p[4]);
        event.more = p[5].type == msgpack::type::BOOLEAN && p[5].via.boolean;
        handler(event);
      });
}

void Api::on_detach(std::function<void(int64_t buf)> handler) {
  peer_.on_notification("nvim_buf_detach_event",
                        [handler = std::move(handler)](const rpc::Message& message) {
                          const msgpack::object& params = message.params;
                          if (params.type != msgpack::type::ARRAY || params.via.array.size < 1) {
                            return;
                          }
                          handler(rpc::to_handle(params.via.array.ptr[0]).value_or(0));
                        });
}

}  // namespace toolhost::nvim
