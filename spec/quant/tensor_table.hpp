// sglang's checkpoint_meta (S4): every tensor name of every file, the last
// file's entry winning; ComfyUI's merged state dict behaves the same way.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

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

 private:
  std::unordered_map<std::string_view, TensorRef> by_name_;
  std::vector<std::string_view> names_;
};

}  // namespace safespec::quant
