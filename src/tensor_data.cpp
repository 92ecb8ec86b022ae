#include "src/tensor_data.hpp"

namespace safespec {

namespace {
class NoData final : public quant::TensorData {
 public:
  std::optional<std::span<const std::uint8_t>> bytes(const quant::TensorRef&) const override { return std::nullopt; }
};
}  // namespace

std::unique_ptr<quant::TensorData> make_tensor_data(std::span<const quant::CheckpointFile>) {
  return std::make_unique<NoData>();
}

}  // namespace safespec
