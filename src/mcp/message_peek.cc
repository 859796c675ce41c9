#include "mcp/message_peek.h"

namespace toolhost::mcp {
namespace {

using Json = nlohmann::json;

// Records the top-level "id", "method" and answer keys; everything deeper is skipped without
// being stored. Returns false (which stops the parse) once the rest cannot change the answer.
class TopLevelPeek : public nlohmann::json_sax<Json> {
 public:
  TopLevelPeek() = default;

  bool null() override { return scalar(Json(nullptr)); }
  bool boolean(bool value) override { return scalar(Json(value)); }
  bool number_integer(number_integer_t value) override { return scalar(Json(value)); }
  bool number_unsigned(number_unsigned_t value) override { return scalar(Json(value)); }
  bool number_float(number_float_t value, const string_t&) override { return scalar(Json(value)); }
  bool string(string_t& value) override { return scalar(Json(value)); }
  bool binary(binary_t&) override { return scalar(Json()); }

  bool start_object(std::size_t) override { return open(); }
  bool start_array(std::size_t) override {
    if (depth_ == 0) return fail();  // a batch: not one message
    return open();
  }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }

  bool key(string_t& name) override {
    if (depth_ != 1) return true;
    key_ = name;
    if (name == "result" || name == "error") {
      answer_key_ = true;
      // The answer's body is what may be large: the id is all that is left to learn.
      if (out_.id) return finish();
    }
    return true;
  }

  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return fail();
  }

  // After the parse: the message, or nothing when the line was not one JSON object.
  PeekedMessage result() {
    if (failed_) return {};
    if (!stopped_) finish();
    return out_;
  }

 private:
  bool open() {
    ++depth_;
    if (depth_ == 2 && (key_ == "id" || key_ == "method")) key_.clear();  // not a scalar
    return true;
  }
  bool close() {
    --depth_;
    return true;
  }
  bool scalar(Json value) {
    if (depth_ == 0) return fail();  // not an object
    if (depth_ != 1) return true;
    if (key_ == "id") {
      out_.id = std::move(value);
      if (answer_key_) return finish();
    } else if (key_ == "method" && value.is_string()) {
      out_.method = value.get<std::string>();
    }
    key_.clear();
    return true;
  }
  bool fail() {
    failed_ = true;
    return false;
  }
  bool finish() {
    stopped_ = true;
    out_.is_answer = answer_key_ && out_.method.empty();
    return false;
  }

  PeekedMessage out_;
  int depth_ = 0;
  std::string key_;
  bool answer_key_ = false;
  bool stopped_ = false;
  bool failed_ = false;
};

}  // namespace

PeekedMessage peek_message(std::string_view line) {
  TopLevelPeek sax;
  Json::sax_parse(line.begin(), line.end(), &sax);
  return sax.result();
}

}  // namespace toolhost::mcp
