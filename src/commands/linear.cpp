// `safespec linear` and `safespec dequant`: a layer of a checkpoint read,
// checked against its format's rules, then through the format's row of the
// numerics table (format_numerics.hpp).
#include "src/commands/linear.hpp"

#include <algorithm>
#include <bit>

#include "spec/quote.hpp"
#include "src/commands/format_numerics.hpp"
#include "src/commands/linear_paths.hpp"
#include "src/io/npy.hpp"
#include "src/numerics/w4a8_weight_fast.hpp"

namespace safespec {

using numerics::FloatType;

namespace {

// The format's dequantized weight to --out.
CommandOutcome write_dequant(const DequantRequest& r, const CheckpointReader& c, const quant::Layer& l) {
  const FormatNumerics* n = find_numerics(l.format);
  if (!n) return usage_error("layer " + quote_name(r.layer) + " has format " + quote_name(l.format) +
                             ", which safespec cannot dequantize");
  auto w = n->dequant(c, l, DequantOptions{r.frozen_codebook});
  if (!w) return outcome_of(w.error());
  const deq::Mat<float>& m = w.value();
  if constexpr (std::endian::native == std::endian::little) {
    // The weight's binary32 bytes are the file's: written where they lie
    // (4 bytes a weight, most of what `dequant` touches).
    if (!is_npy_path(r.out)) {
      const std::span<const std::uint8_t> bytes(reinterpret_cast<const std::uint8_t*>(m.v.data()), m.v.size() * 4);
      if (auto e = write_views(r.out, {{"weight", Dtype::F32, {m.rows, m.cols}, bytes}})) return usage_error(*e);
      return {kExitOk, "", ""};
    }
  }
  if (auto e = write_output(r.out, float_tensor("weight", FloatType::F32, {m.rows, m.cols}, m.v))) return usage_error(*e);
  return {kExitOk, "", ""};
}

}  // namespace

// W4A8 to a safetensors or .npy file, a block of rows at a time (the other
// formats' layers are a quarter the size at most): the F32 matrix is 8 times
// the packed layer, and faulting in a buffer that size costs more than the
// dequantization itself. Both files put their whole header (the shape and
// dtype) before the data, so the header is written first and the rows as
// they are made. The bytes are dequant_as's (W4a8DequantRows is
// w4a8_dequant_fast's rows), written where they lie on a little-endian host.
CommandOutcome dequant_w4a8_streamed(const DequantRequest& r, const CheckpointReader& c, const quant::Layer& l) {
  if (std::endian::native != std::endian::little) return write_dequant(r, c, l);
  auto stored = read_w4a8_for(c, l, DequantOptions{r.frozen_codebook});
  if (!stored) return outcome_of(stored.error());
  const numerics::W4a8Layer& w = stored.value();
  auto rows = numerics::W4a8DequantRows::make(w);
  if (!rows) return refused(r.layer, rows.error());
  std::vector<std::uint8_t> prefix;
  if (is_npy_path(r.out)) {
    auto header = npy_header(NpyType::F32, {w.n, w.k});
    if (!header) return usage_error(r.out + ": " + header.error());
    prefix = std::move(header).value();
  } else {
    auto header = serialize_prefix({{"weight", Dtype::F32, {w.n, w.k}, {}}}, std::nullopt);
    if (!header) return usage_error(r.out + ": " + header.error().message);
    prefix = std::move(header).value();
  }
  constexpr std::size_t kBlockBytes = std::size_t{4} << 20;
  const std::size_t block_rows = std::max<std::size_t>(1, kBlockBytes / std::max<std::size_t>(1, w.k * 4));
  std::vector<float> block(std::min(block_rows, w.n) * w.k);
  bool prefix_given = false;
  std::size_t next_row = 0;
  const auto next = [&]() -> std::span<const std::uint8_t> {
    if (!prefix_given) {
      prefix_given = true;
      return prefix;
    }
    if (next_row >= w.n || w.k == 0) return {};
    const std::size_t end = std::min(w.n, next_row + block_rows);
    static_cast<void>(rows.value().rows(next_row, end, block));  // [next_row, end) fits block by its size
    const std::size_t bytes = (end - next_row) * w.k * 4;
    next_row = end;
    return {reinterpret_cast<const std::uint8_t*>(block.data()), bytes};
  };
  if (auto e = write_file(r.out, next); !e) return usage_error(r.out + ": " + e.error().message);
  return {kExitOk, "", ""};
}

CommandOutcome run_linear(const LinearRequest& r) {
  auto c = CheckpointReader::open(r.checkpoint);
  if (!c) return outcome_of(c.error());
  auto l = c.value()->layer(r.layer);
  if (!l) return outcome_of(l.error());
  if (auto s = c.value()->refuse_invalid(*l.value(), r.semantics == numerics::Semantics::Cuda); !s)
    return outcome_of(s.error());
  auto x = read_linear_input(r.input, r.input_tensor, r.input_dtype);
  if (!x) return outcome_of(x.error());
  const FormatNumerics* n = find_numerics(l.value()->format);
  if (n && n->linear) return n->linear(r, *c.value(), *l.value(), x.value());
  return usage_error("layer " + quote_name(r.layer) + " has format " + quote_name(l.value()->format) +
               ": `linear` is not supported yet for it (supported: " + linear_formats() + ")");
}

CommandOutcome run_dequant(const DequantRequest& r) {
  auto c = CheckpointReader::open(r.checkpoint);
  if (!c) return outcome_of(c.error());
  auto l = c.value()->layer(r.layer);
  if (!l) return outcome_of(l.error());
  if (auto s = c.value()->refuse_invalid(*l.value(), false); !s) return outcome_of(s.error());
  const FormatNumerics* n = find_numerics(l.value()->format);
  if (!n)
    return usage_error("layer " + quote_name(r.layer) + " has format " + quote_name(l.value()->format) +
                       ", which safespec cannot dequantize");
  return n->write_dequant ? n->write_dequant(r, *c.value(), *l.value()) : write_dequant(r, *c.value(), *l.value());
}

}  // namespace safespec
