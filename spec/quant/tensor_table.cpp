#include "spec/quant/tensor_table.hpp"

namespace safespec::quant {

TensorTable::TensorTable(std::span<const CheckpointFile> files) {
  for (std::size_t f = 0; f < files.size(); ++f) {
    for (const TensorEntry& t : files[f].model->header.tensors) {
      auto [it, inserted] = by_name_.insert_or_assign(std::string_view(t.name), TensorRef{&t, f});
      if (inserted) names_.push_back(it->first);
    }
  }
}

const TensorRef* TensorTable::find(std::string_view name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : &it->second;
}

}  // namespace safespec::quant
