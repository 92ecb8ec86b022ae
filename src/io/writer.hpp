// The canonical writer (W1-W8): the reference writer's tensor order, offsets
// and padding, with __metadata__ keys in ascending byte order (the reference's
// order is random, §7.1). It refuses to produce any file its own reader would
// reject, including the reference's `{},"__metadata__":{}}` (X12).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "spec/model.hpp"
#include "spec/result.hpp"
#include "src/io/byte_file.hpp"

namespace safespec {

struct TensorView {
  std::string name;
  Dtype dtype;
  std::vector<std::uint64_t> shape;
  std::span<const std::uint8_t> data;
};

using Metadata = std::vector<std::pair<std::string, std::string>>;

// The whole file: 8-byte length, padded header, tensor bytes in W1 order.
// Refusals: ST-TENSOR-NAME-RESERVED, ST-DUPLICATE-TENSOR,
// ST-DUPLICATE-METADATA-KEY, F9-F11 rules, ST-SIZE-MISMATCH (W3),
// ST-HEADER-TOO-LARGE (W6).
Result<std::vector<std::uint8_t>> serialize(std::vector<TensorView> tensors, const std::optional<Metadata>& metadata);

// The same file as parts, with the same refusals, copying no tensor data
// (a large tensor is written from where it lies): `prefix` is the 8-byte
// length and the padded header, then each tensor's bytes in W1 order.
struct SerializedParts {
  std::vector<std::uint8_t> prefix;
  std::vector<std::span<const std::uint8_t>> data;
};
Result<SerializedParts> serialize_parts(std::vector<TensorView> tensors, const std::optional<Metadata>& metadata);
// Only that prefix, for tensors whose bytes the caller produces as the file
// is written (write_file with a PieceSource): every refusal but W3, which
// the caller keeps by producing exactly each tensor's byte size, in W1
// order. The views' `data` is not read.
Result<std::vector<std::uint8_t>> serialize_prefix(std::vector<TensorView> tensors, const std::optional<Metadata>& metadata);

// The header JSON (W4, unpadded) of a model's tensors in W1 order with their
// own data_offsets; metadata sorted; a null __metadata__ is omitted (X8).
std::string canonical_header_json(const Header& h);

// W7: writes beside `path` and renames, so a reader never sees half a file.
Result<Unit, IoError> write_file(const std::string& path, std::span<const std::uint8_t> bytes);
// The same for bytes given as consecutive parts.
Result<Unit, IoError> write_file(const std::string& path, std::span<const std::span<const std::uint8_t>> parts);
// The same for bytes produced as they are written, so a large output is never
// held whole: each call gives the next piece (valid until the next call), an
// empty piece the end.
using PieceSource = std::function<std::span<const std::uint8_t>()>;
Result<Unit, IoError> write_file(const std::string& path, const PieceSource& next);

// W1: dtype descending, then name ascending in byte order.
bool canonical_less(Dtype da, std::string_view na, Dtype db, std::string_view nb);

}  // namespace safespec
