#pragma once
// The error convention at boundaries (STYLE.md): a value or the message a user reads.
// Exceptions never cross a layer or a libuv callback; a Result does.

#include <string>
#include <utility>
#include <variant>

namespace toolhost::core {

struct Error {
  std::string message;
};

template <class T>
class Result {
 public:
  Result(T value) : data_(std::move(value)) {}      // NOLINT: implicit, like std::optional
  Result(Error error) : data_(std::move(error)) {}  // NOLINT

  bool ok() const { return std::holds_alternative<T>(data_); }
  explicit operator bool() const { return ok(); }
  T& value() { return std::get<T>(data_); }
  const T& value() const { return std::get<T>(data_); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() { return value(); }
  const T& operator*() const { return value(); }
  const std::string& error() const { return std::get<Error>(data_).message; }

 private:
  std::variant<T, Error> data_;
};

inline Error error(std::string message) {
  return Error{std::move(message)};
}

}  // namespace toolhost::core
