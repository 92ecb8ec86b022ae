#include "spec/quant/block_layout.hpp"

#include <algorithm>
#include <vector>

#include "spec/quant/order.hpp"
#include "spec/quant/render.hpp"
#include "spec/quote.hpp"

namespace safespec::quant {

namespace {
}  // namespace

bool shape_is(const TensorRef& t, std::initializer_list<std::uint64_t> want) {
  const auto& s = t.entry->shape;
  return s.size() == want.size() && std::equal(s.begin(), s.end(), want.begin());
}

std::optional<std::uint64_t> roundup(std::uint64_t a, std::uint64_t m) {
  const std::uint64_t r = a % m;
  if (r == 0) return a;
  if (a > UINT64_MAX - (m - r)) return std::nullopt;
  return a + (m - r);
}

std::string roundup_str(std::uint64_t a, std::uint64_t m) {
  if (auto v = roundup(a, m)) return std::to_string(*v);
  std::string d = std::to_string(a / m + 1), out;
  std::uint64_t carry = 0;
  for (std::size_t i = d.size(); i-- > 0;) {
    const std::uint64_t x = static_cast<std::uint64_t>(d[i] - '0') * m + carry;
    out.insert(out.begin(), static_cast<char>('0' + x % 10));
    carry = x / 10;
  }
  for (; carry; carry /= 10) out.insert(out.begin(), static_cast<char>('0' + carry % 10));
  return out;
}

bool comfy_mmap_knows(Dtype d) {
  switch (d) {
    case Dtype::F64: case Dtype::F32: case Dtype::F16: case Dtype::BF16: case Dtype::I64: case Dtype::I32:
    case Dtype::I16: case Dtype::I8: case Dtype::U8: case Dtype::BOOL: case Dtype::F8_E4M3: case Dtype::F8_E5M2:
    case Dtype::C64: case Dtype::U64: case Dtype::U32: case Dtype::U16:
      return true;
    default:
      return false;
  }
}

void check_comfy_mmap(const LayerCheck& c, std::string_view advice) {
  std::vector<const TensorRef*> bad;
  for (const FormatTensor& ft : c.format.tensors)
    if (const TensorRef* r = c.tensor(ft.suffix); r && !comfy_mmap_knows(r->entry->dtype)) bad.push_back(r);
  if (bad.empty()) return;
  std::string list;
  for (const TensorRef* r : bad) list += (list.empty() ? "" : ", ") + quote_name(r->entry->name) + " " + dtype_str(*r);
  c.add(RuleId::QuantDtypeComfyMmap, std::string(advice) + "; got " + list,
          {verdict(Msg::MmapCuMmapKeyError, At{bad.front()->file}, {{"dtype!r", repr(dtype_str(*bad.front()))}})});
}

}  // namespace safespec::quant
