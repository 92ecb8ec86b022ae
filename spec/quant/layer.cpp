#include "spec/quant/layer.hpp"

#include <algorithm>


namespace safespec::quant {

void Sink::add(std::size_t file, RuleId rule, Place where, std::string message,
               std::vector<Verdict> verdicts) {
  if (files_.size() <= file) files_.resize(file + 1);
  files_[file].add(rule, std::move(where), std::move(message), std::move(verdicts));
}

std::vector<LocatedFinding> Sink::findings() const {
  std::vector<LocatedFinding> out;
  for (std::size_t f = 0; f < files_.size(); ++f) {
    for (const Finding& x : files_[f].listed()) out.push_back(LocatedFinding{f, x});
    for (Finding& x : files_[f].count_lines(Place::file())) out.push_back(LocatedFinding{f, std::move(x)});
  }
  return out;
}

void Sink::skip(std::size_t file, std::string what, std::string why, std::vector<Consumer> consumers) {
  for (LocatedUnchecked& u : unchecked_) {
    if (u.file != file || u.item.what != what) continue;
    for (Consumer c : consumers)
      if (std::find(u.item.consumers.begin(), u.item.consumers.end(), c) == u.item.consumers.end())
        u.item.consumers.push_back(c);
    return;
  }
  unchecked_.push_back(LocatedUnchecked{file, Unchecked{std::move(what), std::move(why), std::move(consumers)}});
}

void check_weight_cast(const Layer& l, const TensorRef* weight, std::initializer_list<Dtype> keeps,
                       std::string_view torch_dtype, std::vector<Verdict> comfy, Sink& out) {
  if (!weight) return;
  const Dtype stored = weight->entry->dtype;
  std::string expected;
  for (Dtype d : keeps) {
    if (d == stored) return;
    expected += (expected.empty() ? "" : " or ") + std::string(dtype_name(d));
  }
  out.add(l.file, RuleId::QuantWeightCast, Place::tensor(weight->entry->name),
          "expected the " + l.format + " weight stored as " + expected + ", found " + std::string(dtype_name(stored)) +
              ", which ComfyUI converts to " + std::string(torch_dtype) + " by value",
          std::move(comfy));
}

std::vector<std::string> missing_tensors(const Layer& l, const TensorTable& t,
                                         std::initializer_list<std::string_view> suffixes) {
  std::vector<std::string> out;
  for (std::string_view s : suffixes) {
    std::string name = tensor_name(l, s);
    if (!t.find(name)) out.push_back(std::move(name));
  }
  return out;
}

std::string times2_str(std::uint64_t packed) {
  if (auto v = times2(packed)) return std::to_string(*v);
  // Double the decimal digits by hand: 2 * packed >= 2^64.
  std::string d = std::to_string(packed), out(d.size() + 1, '0');
  int carry = 0;
  for (std::size_t i = d.size(); i-- > 0;) {
    const int x = (d[i] - '0') * 2 + carry;
    out[i + 1] = static_cast<char>('0' + x % 10);
    carry = x / 10;
  }
  out[0] = static_cast<char>('0' + carry);
  return out[0] == '0' ? out.substr(1) : out;
}

std::optional<std::uint64_t> times2(std::uint64_t packed) {
  if (packed > UINT64_MAX / 2) return std::nullopt;
  return packed * 2;
}

}  // namespace safespec::quant
