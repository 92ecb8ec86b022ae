// Errors are data: a rule id, where it happened, and a message that says what
// was expected and what was found. No exceptions cross the parsers.
#pragma once

#include <cassert>
#include <string>
#include <utility>
#include <variant>

#include "spec/place.hpp"
#include "spec/rule_id.hpp"

namespace safespec {

struct Error {
  RuleId rule;
  Place where;          // byte 12, tensor 'a.weight', __metadata__['key'], argument x
  std::string message;  // "expected ..., found ..."

  friend bool operator==(const Error&, const Error&) = default;
};

// T or E. E defaults to a rule violation; I/O layers use IoError.
template <class T, class E = Error>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}
  Result(E error) : v_(std::move(error)) {}

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { assert(ok()); return std::get<0>(v_); }
  const T& value() const& { assert(ok()); return std::get<0>(v_); }
  T&& value() && { assert(ok()); return std::get<0>(std::move(v_)); }
  const E& error() const { assert(!ok()); return std::get<1>(v_); }

  friend bool operator==(const Result&, const Result&) = default;

 private:
  std::variant<T, E> v_;
};

struct Unit {
  friend bool operator==(Unit, Unit) = default;
};
using Status = Result<Unit>;
inline Status ok_status() { return Unit{}; }

}  // namespace safespec
