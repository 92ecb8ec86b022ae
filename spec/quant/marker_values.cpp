#include "spec/quant/marker_values.hpp"

#include <cmath>
#include <variant>

namespace safespec::quant {

bool is_dict(const py::Value& v) { return std::holds_alternative<py::Dict>(v.data); }

const py::Value* get(const py::Value& marker, std::string_view key) {
  const auto* d = std::get_if<py::Dict>(&marker.data);
  if (!d) return nullptr;
  for (const py::DictEntry& e : d->items) {
    const auto* k = std::get_if<std::string>(&e.key.data);
    if (k && *k == key) return &e.value;
  }
  return nullptr;
}

const py::Value* comfy_get(const py::Value& marker, std::string_view key) {
  if (const py::Value* v = get(marker, key)) return v;
  const py::Value* params = get(marker, "params");
  return params && is_dict(*params) ? get(*params, key) : nullptr;
}

bool is_true(const py::Value* v) {
  const bool* b = v ? std::get_if<bool>(&v->data) : nullptr;
  return b && *b;
}

bool truthy(const py::Value& v) {
  return std::visit(
      [](const auto& x) -> bool {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, py::None>) return false;
        else if constexpr (std::is_same_v<T, bool>) return x;
        else if constexpr (std::is_same_v<T, py::Int>) return x.magnitude != 0;
        else if constexpr (std::is_same_v<T, double>) return x != 0.0;  // NaN is truthy
        else if constexpr (std::is_same_v<T, std::string>) return !x.empty();
        else if constexpr (std::is_same_v<T, py::BigInt>) return true;
        else return !x.items.empty();
      },
      v.data);
}

std::string_view type_name(const py::Value& v) {
  return std::visit(
      [](const auto& x) -> std::string_view {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, py::None>) return "NoneType";
        else if constexpr (std::is_same_v<T, bool>) return "bool";
        else if constexpr (std::is_same_v<T, py::Int> || std::is_same_v<T, py::BigInt>) return "int";
        else if constexpr (std::is_same_v<T, double>) return "float";
        else if constexpr (std::is_same_v<T, std::string>) return "str";
        else if constexpr (std::is_same_v<T, py::List>) return "list";
        else if constexpr (std::is_same_v<T, py::Tuple>) return "tuple";
        else return "dict";
      },
      v.data);
}

Result<py::Value, py::PyException> int_of(const py::Value& marker, std::string_view key, std::int64_t fallback) {
  const py::Value* v = get(marker, key);
  if (!v) return py::py_int(py::Value(fallback));  // the Int itself; one return type keeps GCC -O1 quiet
  return py::py_int(*v);
}

std::string str_of(const py::Value& marker, std::string_view key, std::string_view fallback) {
  const py::Value* v = get(marker, key);
  return v ? py::str(*v) : std::string(fallback);
}

std::optional<std::int64_t> as_int64(const py::Value& v) {
  const auto* i = std::get_if<py::Int>(&v.data);
  if (!i) return std::nullopt;
  constexpr std::uint64_t kMax = static_cast<std::uint64_t>(INT64_MAX);
  if (!i->negative) {
    if (i->magnitude > kMax) return std::nullopt;
    return static_cast<std::int64_t>(i->magnitude);
  }
  if (i->magnitude > kMax + 1) return std::nullopt;
  return i->magnitude == kMax + 1 ? INT64_MIN : -static_cast<std::int64_t>(i->magnitude);
}

std::optional<std::int64_t> comfy_int(const py::Value& marker, std::string_view key, std::int64_t fallback) {
  const py::Value* v = comfy_get(marker, key);
  if (!v) return fallback;
  if (const bool* b = std::get_if<bool>(&v->data)) return *b ? 1 : 0;
  return as_int64(*v);
}

std::string sglang_format(const py::Value& marker) {
  const py::Value* v = get(marker, "format");
  return v ? py::str(*v) : std::string("None");
}

}  // namespace safespec::quant
