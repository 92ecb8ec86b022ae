// sglang's checkpoint_meta (S4): every tensor name of every file, the last
// file's entry winning; ComfyUI's merged state dict behaves the same way.
//
// The rules look a name up several times per quantized layer, so on a
// header of a million quantized tensors the table is most of the work: it
// is a NameIndex (open addressing over keyed hash tags, spec/name_index.hpp)
// over one flat array of entries, with no allocation per name, and the
// hashes the parse already worked out (Header::name_hashes) are reused.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

#include "spec/name_index.hpp"
#include "spec/quant/checkpoint.hpp"

namespace safespec::quant {

struct TensorRef {
  const TensorEntry* entry = nullptr;
  std::size_t file = 0;
};

class TensorTable {
 public:
  explicit TensorTable(std::span<const CheckpointFile> files);

  // nullptr when no file has the tensor.
  const TensorRef* find(std::string_view name) const;
  // The names, each once, in order of first appearance (file, then document order).
  const std::vector<std::string_view>& names() const { return names_; }
  // What find(names()[k]) finds, without looking the name up.
  const TensorRef& named(std::size_t k) const { return refs_[named_at_[k]]; }

 private:
  // Every tensor of every file, numbered in order (file, then document
  // order); the index maps a name to the number of its first appearance,
  // whose ref holds the last file's entry.
  NameIndex index_;
  std::vector<std::string_view> all_;
  std::vector<TensorRef> refs_;
  std::vector<std::string_view> names_;
  std::vector<std::size_t> named_at_;  // names_[k] is all_[named_at_[k]]
};

}  // namespace safespec::quant
