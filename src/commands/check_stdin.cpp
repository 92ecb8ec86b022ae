#include "src/commands/check_stdin.hpp"

#include <algorithm>
#include <cstdint>
#include <string_view>

#include "spec/header_reader.hpp"
#include "spec/limits.hpp"
#include "spec/quant/checkpoint.hpp"
#include "spec/reference/reference_reader.hpp"
#include "src/parse/header_parser.hpp"

namespace safespec {

namespace {

// hint_for_bytes reads this many of the first bytes.
constexpr std::uint64_t kHintBytes = 64;

std::uint64_t le64(std::span<const std::uint8_t> b) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < 8; ++i) v |= std::uint64_t{b[i]} << (8 * i);
  return v;
}

bool is_marker(std::string_view name) { return name.ends_with(quant::kMarkerSuffix); }

}  // namespace

HoldPlan check_stdin_plan() {
  HoldPlan plan;
  plan.head = [](std::span<const std::uint8_t> first) -> std::uint64_t {
    if (first.size() < 8 || le64(first) > kMaxHeaderSize) return kHintBytes;
    return std::max(kHintBytes, 8 + le64(first));
  };
  plan.more = [](std::span<const std::uint8_t> head) {
    std::vector<HeldRange> out;
    if (head.size() < 8 || le64(head) > head.size() - 8) return out;  // the stream ended in its header
    const std::uint64_t n = le64(head);
    const std::uint64_t base = 8 + n;
    const std::string_view text(reinterpret_cast<const char*>(head.data() + 8), n);
    const auto add = [&](std::string_view name, std::uint64_t begin, std::uint64_t end) {
      if (is_marker(name) && end >= begin && end - begin <= kMaxMarkerReadBytes && begin <= UINT64_MAX - base)
        out.push_back(HeldRange{base + begin, end - begin});
    };
    HeaderParser parser;
    if (auto plain = parser.parse_plain(text)) {
      for (const TensorEntry& t : plain->tensors) add(t.name.view(), t.begin, t.end);
    } else if (auto header = read_header_reference(text)) {
      for (const TensorEntry& t : header.value().tensors) add(t.name.view(), t.begin, t.end);
    } else {
      // The reference may read a header the strict reader refuses; the
      // check then takes its tensors (model_from_reference).
      const reference::Answer a = reference::read_header(n, text, head.size(), true);
      if (a.metadata)
        for (const reference::TensorInfo& t : a.metadata->tensors) add(t.name, t.begin, t.end);
    }
    return out;
  };
  return plan;
}

}  // namespace safespec
