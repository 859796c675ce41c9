#include "rpc/encoder.h"

#include <msgpack.hpp>

namespace toolhost::rpc {
namespace {

class Writer {
 public:
  explicit Writer(uint32_t items) : packer_(buffer_) { packer_.pack_array(items); }
  Writer& integer(uint32_t value) {
    packer_.pack(value);
    return *this;
  }
  Writer& string(std::string_view text) {
    packer_.pack_str(static_cast<uint32_t>(text.size()));
    packer_.pack_str_body(text.data(), static_cast<uint32_t>(text.size()));
    return *this;
  }
  Writer& value(const nlohmann::json& value) {
    if (value.is_null()) {
      packer_.pack_nil();
    } else {
      nlohmann::json::to_msgpack(value, bytes_);
      buffer_.write(reinterpret_cast<const char*>(bytes_.data()), bytes_.size());
      bytes_.clear();
    }
    return *this;
  }
  std::string take() { return std::string(buffer_.data(), buffer_.size()); }

 private:
  msgpack::sbuffer buffer_;
  msgpack::packer<msgpack::sbuffer> packer_;
  std::vector<uint8_t> bytes_;
};

const nlohmann::json& as_array(const nlohmann::json& params) {
  static const nlohmann::json empty = nlohmann::json::array();
  return params.is_null() ? empty : params;
}

}  // namespace

std::string encode_request(uint32_t id, std::string_view method, const nlohmann::json& params) {
  return Writer(4).integer(0).integer(id).string(method).value(as_array(params)).take();
}

std::string encode_notification(std::string_view method, const nlohmann::json& params) {
  return Writer(3).integer(2).string(method).value(as_array(params)).take();
}

std::string encode_response(uint32_t id, const nlohmann::json& error,
                            const nlohmann::json& result) {
  return Writer(4).integer(1).integer(id).value(error).value(result).take();
}

}  // namespace toolhost::rpc
