#pragma once
// msgpack-RPC messages: [0, id, method, params], [1, id, error, result], [2, method, params].

#include <cstdint>
#include <msgpack.hpp>
#include <string>

namespace toolhost::rpc {

enum class MessageType { Request = 0, Response = 1, Notification = 2 };

struct Message {
  MessageType type = MessageType::Notification;
  uint32_t id = 0;
  std::string method;
  msgpack::object params;  // request / notification: an array
  msgpack::object error;   // response: nil when the call succeeded
  msgpack::object result;  // response
  // Owns the memory the objects above point into; moving a Message keeps them valid.
  msgpack::object_handle handle;
};

}  // namespace toolhost::rpc
