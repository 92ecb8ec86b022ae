// Reading tensor bytes for the --data rules (spec/quant/data_rules.hpp) from
// the checkpoint files, by positional reads, within fixed bounds: a hostile
// header can name any offsets and sizes, so every offset is checked against
// the file's size and the total read per run is capped.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "spec/limits.hpp"
#include "spec/model.hpp"
#include "spec/quant/checkpoint.hpp"
#include "spec/quant/data_rules.hpp"
#include "src/byte_file.hpp"

namespace safespec {

class FileTensorData final : public quant::TensorData {
 public:

  struct Source {
    std::string path;
    const Model* model = nullptr;  // never null; outlives this object
  };

  // One source per file index (TensorRef::file), in quant::CheckpointFile order.
  // The bounds are parameters so tests can reach them with small files.
  explicit FileTensorData(std::vector<Source> files, std::uint64_t max_tensor = kMaxTensorBytes,
                          std::uint64_t max_run = kMaxRunBytes);
  explicit FileTensorData(std::span<const quant::CheckpointFile> files);

  // The tensor's bytes, valid until the next call; or why they were not read:
  // the file cannot be read, the offsets lie outside it, or a bound is
  // reached ("256 MiB per tensor: it has 300000000 bytes").
  quant::TensorBytes bytes(const quant::TensorRef& t) const override;

  std::uint64_t bytes_read() const { return read_; }

 private:
  struct Open {
    bool tried = false;
    std::optional<ByteFile> file;
    std::string error;  // why it could not be opened
  };

  std::vector<Source> sources_;
  std::uint64_t max_tensor_;
  std::uint64_t max_run_;
  mutable std::vector<Open> open_;
  // Only the latest tensor is kept, so memory stays within kMaxTensorBytes.
  mutable std::vector<std::uint8_t> buffer_;
  mutable const TensorEntry* cached_ = nullptr;
  mutable std::size_t cached_file_ = 0;
  mutable std::uint64_t read_ = 0;
};

}  // namespace safespec
