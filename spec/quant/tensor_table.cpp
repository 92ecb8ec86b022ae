#include "spec/quant/tensor_table.hpp"

namespace safespec::quant {

TensorTable::TensorTable(std::span<const CheckpointFile> files) {
  std::size_t total = 0;
  for (const CheckpointFile& f : files) total += f.model->header.tensors.size();
  all_.reserve(total);
  refs_.reserve(total);
  std::vector<bool> repeated(total, false);
  const auto name_at = [&](std::size_t i) { return all_[i]; };
  index_.begin_walk(total);
  for (std::size_t f = 0; f < files.size(); ++f) {
    const Header& h = files[f].model->header;
    const std::size_t from = all_.size();
    for (const TensorEntry& t : h.tensors) {
      all_.push_back(t.name);
      refs_.push_back(TensorRef{&t, f});
    }
    const bool hashed = h.name_hashes.values.size() == h.tensors.size();
    const auto hash_at = [&](std::size_t i) { return hashed ? h.name_hashes.values[i - from] : name_hash(all_[i]); };
    index_.walk(from, all_.size(), hash_at, name_at, [&](std::size_t i, std::size_t first) {
      refs_[first] = refs_[i];  // in order, so the last file's entry is kept
      repeated[i] = true;
      return true;
    });
  }
  names_.reserve(total);
  named_at_.reserve(total);
  for (std::size_t i = 0; i < total; ++i) {
    if (repeated[i]) continue;
    names_.push_back(all_[i]);
    named_at_.push_back(i);
  }
}

const TensorRef* TensorTable::find(std::string_view name) const {
  const std::size_t i = index_.find(name, [&](std::size_t k) { return all_[k]; });
  return i == NameIndex::npos ? nullptr : &refs_[i];
}

}  // namespace safespec::quant
