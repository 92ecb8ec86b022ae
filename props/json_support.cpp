#include "props/json_support.hpp"

#include <limits>
#include <stdexcept>
#include <string>
#include <variant>

#include "spec/python/python_json.hpp"
#include "spec/quant/marker_values.hpp"

namespace safespec::test {

namespace {

template <class T>
const T& json_as(const py::Value& v, const char* what) {
  if (const T* x = std::get_if<T>(&v.data)) return *x;
  throw std::runtime_error(std::string("the JSON value is not ") + what);
}

}  // namespace

Json parse_json(std::string_view text) {
  auto parsed = py::loads(text, py::LoadLimits{text.size(), kPythonJsonDepth});
  if (!parsed) throw std::runtime_error("not JSON: " + parsed.error().what());
  auto root = std::make_shared<const py::Value>(std::move(parsed).value());
  const py::Value* top = root.get();
  return Json(std::move(root), top);
}

const py::Value& Json::value() const {
  if (!value_) throw std::runtime_error("no such JSON value (a key or index that is not there)");
  return *value_;
}

bool Json::is_null() const { return value_ && std::holds_alternative<py::None>(value_->data); }
bool Json::is_object() const { return value_ && std::holds_alternative<py::Dict>(value_->data); }
bool Json::is_array() const { return value_ && std::holds_alternative<py::List>(value_->data); }

Json Json::operator[](std::string_view key) const {
  const py::Value* v = value_ ? quant::get(*value_, key) : nullptr;
  return v ? Json(root_, v) : Json();
}

Json Json::at(std::size_t i) const {
  if (!is_array()) return {};
  const auto& items = std::get<py::List>(value_->data).items;
  return i < items.size() ? Json(root_, &items[i]) : Json();
}

std::size_t Json::size() const {
  if (is_object()) return std::get<py::Dict>(value_->data).items.size();
  return json_as<py::List>(value(), "an array or object").items.size();
}

Json::operator std::string_view() const { return json_as<std::string>(value(), "a string"); }
Json::operator bool() const { return json_as<bool>(value(), "true or false"); }

Json::operator std::uint64_t() const {
  const py::Int& i = json_as<py::Int>(value(), "an integer");
  if (i.negative && i.magnitude != 0) throw std::runtime_error("the JSON integer is negative");
  return i.magnitude;
}

Json::operator std::int64_t() const {
  const py::Int& i = json_as<py::Int>(value(), "an integer");
  constexpr std::uint64_t max = std::numeric_limits<std::int64_t>::max();
  if (i.magnitude > max + (i.negative ? 1 : 0)) throw std::runtime_error("the JSON integer is out of int64 range");
  return i.negative ? static_cast<std::int64_t>(std::uint64_t{0} - i.magnitude) : static_cast<std::int64_t>(i.magnitude);
}

Json::operator double() const {
  if (const auto* i = std::get_if<py::Int>(&value().data))
    return i->negative ? -static_cast<double>(i->magnitude) : static_cast<double>(i->magnitude);
  return json_as<double>(value(), "a number");
}

Json::Iterator Json::begin() const {
  json_as<py::List>(value(), "an array");
  return Iterator(*this, 0);
}

std::vector<Json::Member> Json::members() const {
  std::vector<Member> out;
  for (const py::DictEntry& e : json_as<py::Dict>(value(), "an object").items)
    out.push_back(Member{std::get<std::string>(e.key.data), Json(root_, &e.value)});
  return out;
}

}  // namespace safespec::test
