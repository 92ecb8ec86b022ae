// Reading the commands' JSON output in tests (--json, SARIF, `rules --json`,
// the recorded reference answers) with the project's own JSON reader
// (py::loads, spec/python/python_json.hpp), so the tests need no JSON library of
// their own. A Json is a read-only view into one parsed document and keeps
// the document alive.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "spec/python/python_repr.hpp"

namespace safespec::test {

// A value, or nothing (a key or index that is not there). Reading a value as
// the wrong type, or reading nothing, throws: Catch reports the test failed.
class Json {
 public:
  Json() = default;

  bool exists() const { return value_ != nullptr; }
  bool is_null() const;
  bool is_object() const;
  bool is_array() const;

  // Nothing when this is no object or has no such key.
  Json operator[](std::string_view key) const;
  // Nothing when this is no array or too short.
  Json at(std::size_t i) const;
  // An array's items or an object's members.
  std::size_t size() const;

  explicit operator std::string_view() const;
  explicit operator bool() const;
  explicit operator std::uint64_t() const;
  explicit operator std::int64_t() const;
  explicit operator double() const;  // an integer too, as JSON has one number type

  // An array's items, in order.
  class Iterator {
   public:
    Iterator(const Json& array, std::size_t i) : array_(&array), i_(i) {}
    Json operator*() const { return array_->at(i_); }
    Iterator& operator++() {
      ++i_;
      return *this;
    }
    bool operator==(const Iterator& o) const { return i_ == o.i_; }

   private:
    const Json* array_;
    std::size_t i_;
  };
  Iterator begin() const;
  Iterator end() const { return Iterator(*this, size()); }

  // An object's members, in document order.
  struct Member;
  std::vector<Member> members() const;

 private:
  friend Json parse_json(std::string_view text);
  Json(std::shared_ptr<const py::Value> root, const py::Value* value) : root_(std::move(root)), value_(value) {}
  const py::Value& value() const;

  std::shared_ptr<const py::Value> root_;
  const py::Value* value_ = nullptr;
};

struct Json::Member {
  std::string_view key;
  Json value;
};

// The document `text` holds; throws when it is not JSON.
Json parse_json(std::string_view text);

}  // namespace safespec::test
