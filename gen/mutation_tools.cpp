#include "gen/mutation_tools.hpp"

#include <set>
#include <utility>

#include "spec/format_rules.hpp"
#include "src/report/json_escape.hpp"

namespace safespec::gen::detail {

using rc::gen::inRange;

std::size_t pick(std::size_t n) { return *inRange<std::size_t>(0, n); }

std::string fresh_name(const Plan& p, std::string base) {
  std::set<std::string> names;
  for (const auto& t : p.tensors) names.insert(t.name.str());
  while (names.count(base) || base == "__metadata__") base += '~';
  return base;
}

std::size_t append_u8(Plan& p, std::uint64_t size, const std::string& base) {
  const std::uint64_t begin = p.data.size();
  for (std::uint64_t i = 0; i < size; ++i) p.data.push_back(static_cast<std::uint8_t>(i * 37 + 11));
  p.tensors.push_back(tensor_entry(fresh_name(p, base), Dtype::U8, {size}, begin, begin + size));
  return p.tensors.size() - 1;
}

std::uint64_t span(const TensorEntry& t) { return t.end - t.begin; }

std::vector<std::size_t> offset_order(const Plan& p) {
  const auto sorted = sorted_by_offsets(p.tensors);
  std::vector<std::size_t> idx;
  for (const TensorEntry* t : sorted) idx.push_back(static_cast<std::size_t>(t - p.tensors.data()));
  return idx;
}

std::size_t any_tensor(Plan& p) {
  if (p.tensors.empty()) append_u8(p, *inRange<std::uint64_t>(0, 5));
  return pick(p.tensors.size());
}

Mutant done(const Plan& p, std::string what) { return {bytes_of(p), std::move(what)}; }
Mutant done(const Layout& l, std::string what) { return {bytes_of(l), std::move(what)}; }

std::string name_of(const Plan& p, std::size_t i) { return "tensor '" + escaped_text(p.tensors[i].name) + "'"; }

Mutant with_tensor_value(const Plan& p, std::size_t i, std::string value, const std::string& what) {
  Layout l = layout_of(p);
  l.members[tensor_member(p, i)].value = std::move(value);
  return done(l, what + " in " + name_of(p, i));
}

Mutant with_fields(const Plan& p, std::size_t i, const std::vector<Member>& fields, const std::string& what) {
  return with_tensor_value(p, i, object_text(fields), what);
}

std::vector<std::uint8_t> raw_file(const std::string& h, const std::vector<std::uint8_t>& data) {
  std::vector<std::uint8_t> bytes;
  for (int k = 0; k < 8; ++k) bytes.push_back(static_cast<std::uint8_t>(static_cast<std::uint64_t>(h.size()) >> (8 * k)));
  bytes.insert(bytes.end(), h.begin(), h.end());
  bytes.insert(bytes.end(), data.begin(), data.end());
  return bytes;
}

std::string padded(std::string h) {
  h.resize((h.size() + 7) / 8 * 8, ' ');
  return h;
}

Mutant insert_in_header(const Plan& p, const std::string& piece, std::size_t lo, std::size_t hi,
                        const std::string& what) {
  const Layout l = layout_of(p);
  std::string h = header_text(l);
  const std::size_t at = *inRange<std::size_t>(lo, hi + 1);
  h.insert(at, piece);
  return {raw_file(h, l.data), what + " at header byte " + std::to_string(at)};
}

std::vector<std::uint8_t> set_length(std::vector<std::uint8_t> bytes, std::uint64_t n) {
  for (int i = 0; i < 8; ++i) bytes[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(n >> (8 * i));
  return bytes;
}

std::optional<std::string> escaped_spelling(const std::string& name) {
  std::vector<std::pair<std::size_t, std::size_t>> chars;  // (start, length) of each code point
  for (std::size_t i = 0; i < name.size();) {
    const auto c = static_cast<unsigned char>(name[i]);
    const std::size_t len = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    chars.emplace_back(i, len);
    i += len;
  }
  const bool upper = *rc::gen::arbitrary<bool>();
  const std::size_t first = chars.empty() ? 0 : pick(chars.size());
  for (std::size_t k = 0; k < chars.size(); ++k) {
    const auto [start, len] = chars[(first + k) % chars.size()];
    std::uint32_t cp = static_cast<unsigned char>(name[start]);
    if (len > 1) {
      cp &= len == 2 ? 0x1F : len == 3 ? 0x0F : 0x07;
      for (std::size_t b = 1; b < len; ++b) cp = (cp << 6) | (static_cast<unsigned char>(name[start + b]) & 0x3F);
    }
    for (const bool up : {upper, !upper}) {
      const char* digits = up ? "0123456789ABCDEF" : "0123456789abcdef";
      auto unit = [&](std::uint32_t v) {
        std::string s = "\\u";
        for (int shift = 12; shift >= 0; shift -= 4) s += digits[(v >> shift) & 15];
        return s;
      };
      std::string esc;
      if (cp >= 0x10000) {
        const std::uint32_t v = cp - 0x10000;
        esc = unit(0xD800 + (v >> 10)) + unit(0xDC00 + (v & 0x3FF));
      } else {
        esc = unit(cp);
      }
      // json_string of the parts around it; the parts never split a code point.
      const std::string before = json_string(name.substr(0, start));
      const std::string after = json_string(name.substr(start + len));
      std::string spelling = before.substr(0, before.size() - 1) + esc + after.substr(1);
      if (spelling != json_string(name)) return spelling;
    }
  }
  return std::nullopt;
}

}  // namespace safespec::gen::detail
