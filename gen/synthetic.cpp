#include "gen/synthetic.hpp"

#include <algorithm>
#include <vector>

#include "spec/format_rules.hpp"
#include "src/io/writer.hpp"

namespace safespec::gen {

Header synthetic_checkpoint(std::size_t tensors, std::size_t experts) {
  Header h;
  h.metadata_state = MetadataState::Present;
  h.metadata = {{"format", "pt"}, {"producer", "safespec synthetic"}};
  h.tensors.reserve(tensors);
  for (std::size_t i = 0; i < tensors; ++i) {
    TensorEntry& t = h.tensors.emplace_back();
    t.name = "model.layers." + std::to_string(i / experts) + ".mlp.experts." + std::to_string(i % experts) +
             ".w2.weight";
    t.dtype = i % 5 == 0 ? Dtype::F32 : Dtype::BF16;
    t.shape = i % 5 == 0 ? std::vector<std::uint64_t>{4096} : std::vector<std::uint64_t>{4096, 1408};
  }
  std::sort(h.tensors.begin(), h.tensors.end(), [](const TensorEntry& a, const TensorEntry& b) {
    return canonical_less(a.dtype, a.name, b.dtype, b.name);
  });
  std::uint64_t offset = 0;
  for (TensorEntry& t : h.tensors) {
    t.begin = offset;
    offset += *tensor_byte_size(t.shape, t.dtype);
    t.end = offset;
  }
  return h;
}

SyntheticText synthetic_checkpoint_text(std::size_t tensors, std::size_t experts) {
  const Header h = synthetic_checkpoint(tensors, experts);
  SyntheticText out{canonical_header_json(h), h.tensors.empty() ? 0 : h.tensors.back().end};
  out.text.resize((out.text.size() + 7) / 8 * 8, ' ');
  return out;
}

}  // namespace safespec::gen
