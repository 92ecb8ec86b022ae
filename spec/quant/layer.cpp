#include "spec/quant/layer.hpp"

#include <algorithm>

#include "spec/quant/marker_values.hpp"
#include "spec/quant/order.hpp"
#include "spec/quant/render.hpp"
#include "spec/quote.hpp"


namespace safespec::quant {

void Sink::add(std::size_t file, RuleId rule, Place where, std::string message,
               std::vector<Verdict> verdicts) {
  if (recording_) {
    calls_.push_back(Call{false, file, rule, std::move(where), std::move(message), {}, std::move(verdicts), {}});
    return;
  }
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
  if (recording_) {
    calls_.push_back(Call{true, file, RuleId{}, Place::file(), std::move(what), std::move(why), {}, std::move(consumers)});
    return;
  }
  std::string key = std::to_string(file) + '\0' + what;
  if (auto it = unchecked_at_.find(key); it != unchecked_at_.end()) {
    LocatedUnchecked& u = unchecked_[it->second];
    for (Consumer c : consumers)
      if (std::find(u.item.consumers.begin(), u.item.consumers.end(), c) == u.item.consumers.end())
        u.item.consumers.push_back(c);
    return;
  }
  unchecked_at_.emplace(std::move(key), unchecked_.size());
  unchecked_.push_back(LocatedUnchecked{file, Unchecked{std::move(what), std::move(why), std::move(consumers)}});
}

Sink Sink::recorder() {
  Sink s;
  s.recording_ = true;
  return s;
}

void Sink::replay_into(Sink& to) && {
  for (Call& c : calls_) {
    if (c.skip) to.skip(c.file, std::move(c.text), std::move(c.why), std::move(c.consumers));
    else to.add(c.file, c.rule, std::move(c.where), std::move(c.text), std::move(c.verdicts));
  }
  calls_.clear();
}

std::string LayerCheck::prefix_repr() const { return repr(l.prefix); }

const TensorRef* LayerCheck::tensor(std::string_view suffix) const {
  for (std::size_t i = 0; i < looked_count_; ++i)
    if (std::string_view(looked_[i].suffix.data(), looked_[i].size) == suffix) return looked_[i].ref;
  // One buffer per thread (the data rules run on several) holds the name.
  thread_local std::string name;
  name.assign(l.prefix);
  name += '.';
  name += suffix;
  const TensorRef* ref = t.find(name);
  if (looked_count_ < looked_.size() && suffix.size() <= Looked{}.suffix.size()) {
    Looked& k = looked_[looked_count_++];
    std::copy(suffix.begin(), suffix.end(), k.suffix.begin());
    k.size = suffix.size();
    k.ref = ref;
  }
  return ref;
}

bool weight_kept(const LayerCheck& c) {
  const TensorRef* weight = c.weight();
  if (!weight) return true;
  for (Dtype d : c.format.weight_keeps)
    if (d == weight->entry->dtype) return true;
  return false;
}

std::vector<std::string> missing_tensors(const LayerCheck& c) {
  std::vector<std::string> out;
  for (const FormatTensor& ft : c.format.tensors)
    if (ft.required && !c.tensor(ft.suffix)) out.push_back(tensor_name(c.l, ft.suffix));
  return out;
}

void check_required_tensors(const LayerCheck& c, const std::vector<std::string>& missing, std::vector<Verdict> others,
                            std::string_view note) {
  if (missing.empty()) return;
  std::vector<Verdict> v;
  if (c.format.sglang_validates)
    v.push_back(verdict(Msg::SharedSgMissingTensors, At{c.l.index},
                        {{"prefix!r", c.prefix_repr()}, {"sorted(missing)", sorted_list_repr(missing)}}));
  for (Verdict& o : others) v.push_back(std::move(o));
  std::vector<std::string_view> req;
  for (const FormatTensor& ft : c.format.tensors)
    if (ft.required) req.push_back(ft.suffix);
  std::string required, found;
  for (std::size_t i = 0; i < req.size(); ++i)
    required += std::string(i == 0 ? "" : i + 1 == req.size() ? " and " : ", ") + std::string(req[i]);
  for (const std::string& m : missing) found += (found.empty() ? "" : ", ") + quote_name(m);
  c.add(c.format.tensors_rule,
        "expected the " + std::string(c.format.name) + " tensors " + required + ", missing " + found + std::string(note),
        std::move(v));
}

void check_weight_cast(const LayerCheck& c, std::vector<Verdict> comfy) {
  if (weight_kept(c)) return;
  const TensorRef* weight = c.weight();
  const Dtype stored = weight->entry->dtype;
  std::string expected;
  for (Dtype d : c.format.weight_keeps) {
    if (d == stored) return;
    expected += (expected.empty() ? "" : " or ") + std::string(dtype_name(d));
  }
  c.add(RuleId::QuantWeightCast, Place::tensor(weight->entry->name),
        "expected the " + std::string(c.format.name) + " weight stored as " + expected + ", found " +
            std::string(dtype_name(stored)) + ", which ComfyUI converts to " + std::string(c.format.comfy_torch_dtype) +
            " by value",
        std::move(comfy));
}

void check_marker_ints(const LayerCheck& c, std::initializer_list<IntRead> reads) {
  std::string found;
  std::vector<Verdict> v;
  std::vector<std::string_view> keys;
  for (const IntRead& r : reads) {
    if (r.result.ok()) continue;
    const py::PyException& e = r.result.error();
    const bool seen = std::any_of(v.begin(), v.end(), [&](const Verdict& x) { return x.consumer == r.consumer; });
    if (r.at && !seen) v.push_back(Verdict{r.consumer, Effect::Rejects, e.type, e.message, *r.at});
    if (std::find(keys.begin(), keys.end(), r.key) != keys.end()) continue;
    keys.push_back(r.key);
    const py::Value* raw = get(*c.l.marker, r.key);
    if (!raw) raw = comfy_get(*c.l.marker, r.key);  // ComfyUI's fallback to params
    found += std::string(found.empty() ? "" : "; ") + std::string(r.key) + ": int(" +
             (raw ? py::repr(*raw) : std::string("None")) + ") raises " + e.type + ": " + e.message;
  }
  if (found.empty()) return;
  c.add(RuleId::QuantKeyInt, "expected marker values that survive Python int(), found " + found, std::move(v));
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
