#include "spec/quant/render.hpp"

#include "spec/python/python_repr.hpp"
#include "spec/quote.hpp"

namespace safespec::quant {

std::string repr(std::string_view s) { return py::repr_str(s); }

std::string shape_repr(std::span<const std::uint64_t> s) {
  std::string out = "(";
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (i) out += ", ";
    out += std::to_string(s[i]);
  }
  if (s.size() == 1) out += ",";
  return out + ")";
}

std::string dtype_str(const TensorRef& t) { return std::string(dtype_name(t.entry->dtype)); }

std::string shape_str(const TensorRef& t) { return shape_repr(t.entry->shape); }

std::string meta_repr(const TensorRef* t) {
  if (!t) return "None";
  return "(" + repr(dtype_str(*t)) + ", " + shape_str(*t) + ")";
}

std::string sorted_list_repr(std::vector<std::string> names, std::size_t limit) {
  return py::repr(py::sorted_list(std::move(names), limit));
}

std::string comfy_layer_name(std::string_view prefix) {
  constexpr std::string_view model = "model.diffusion_model.";
  if (prefix.substr(0, model.size()) == model) prefix.remove_prefix(model.size());
  return std::string(prefix);
}


}  // namespace safespec::quant
