#include "src/commands/format_numerics.hpp"

#include <iterator>

#include "spec/numerics/svdquant.hpp"
#include "spec/quote.hpp"
#include "spec/rule_catalogue.hpp"
#include "src/commands/linear_paths.hpp"
#include "src/numerics/dequant_fast.hpp"

namespace safespec {

namespace {

// The reference refusing the layer's values: the layer's own invariant (exit 1).
LayerError refusal(const quant::Layer& l, const Error& e) { return values_refused(l.prefix, e); }

template <class Stored>
using StoredReader = LayerResult<Stored> (*)(const CheckpointReader&, const quant::Layer&);
template <class Stored>
using Compute = Result<deq::Mat<float>> (*)(const Stored&);

template <class Stored, StoredReader<Stored> read, Compute<Stored> compute>
LayerResult<deq::Mat<float>> dequant_as(const CheckpointReader& c, const quant::Layer& l, const DequantOptions&) {
  auto stored = read(c, l);
  if (!stored) return stored.error();
  Result<deq::Mat<float>> w = compute(stored.value());
  if (!w) return refusal(l, w.error());
  return std::move(w).value();
}

LayerResult<deq::Mat<float>> dequant_w4a8(const CheckpointReader& c, const quant::Layer& l, const DequantOptions& o) {
  auto stored = read_w4a8_for(c, l, o);
  if (!stored) return stored.error();
  Result<deq::Mat<float>> w = w4a8_dequant_f32(stored.value());
  if (!w) return refusal(l, w.error());
  return std::move(w).value();
}

// The fast dequantizations, the references' bits (prop_dequant_fast_test).
Result<deq::Mat<float>> fp8_f32(const deq::Fp8Weight& s) { return numerics::dequant_fp8_fast(s, Dtype::F32); }
Result<deq::Mat<float>> int8_f32(const deq::Int8Weight& s) { return numerics::dequant_int8_fast(s, Dtype::F32); }
Result<deq::Mat<float>> w4a4_f32(const deq::W4a4Weight& s) { return numerics::dequant_convrot_w4a4_fast(s, Dtype::F32); }
Result<deq::Mat<float>> nvfp4_f32(const deq::Nvfp4Weight& s) { return numerics::dequant_nvfp4_fast(s, Dtype::F32); }
Result<deq::Mat<float>> mxfp8_f32(const deq::Mxfp8Weight& s) { return numerics::dequant_mxfp8_fast(s, Dtype::F32); }
// awq computes in its scale dtype S (§11); the S values are written as F32.
Result<deq::Mat<float>> awq_f32(const deq::AwqWeight& s) { return numerics::dequant_awq_w4a16_fast(s); }
// The reference itself: no fast path yet (a layer is at most a few MB of codes).
Result<deq::Mat<float>> svdquant_f32(const deq::SvdquantWeight& s) { return deq::dequant_svdquant_w4a4(s, Dtype::F32); }

using Q = quant::QuantFormat;
constexpr FormatNumerics kNumerics[] = {
    {Q::Fp8E4m3, dequant_as<deq::Fp8Weight, read_fp8, fp8_f32>, nullptr},
    {Q::Fp8E5m2, dequant_as<deq::Fp8Weight, read_fp8, fp8_f32>, nullptr},
    {Q::Nvfp4, dequant_as<deq::Nvfp4Weight, read_nvfp4, nvfp4_f32>, nullptr},
    {Q::Mxfp8, dequant_as<deq::Mxfp8Weight, read_mxfp8, mxfp8_f32>, nullptr},
    {Q::Int8, dequant_as<deq::Int8Weight, read_int8, int8_f32>, linear_int8},
    {Q::W4a4, dequant_as<deq::W4a4Weight, read_w4a4, w4a4_f32>, linear_w4a4},
    {Q::W4a8, dequant_w4a8, linear_w4a8, dequant_w4a8_streamed},
    {Q::Awq, dequant_as<deq::AwqWeight, read_awq, awq_f32>, nullptr},
    {Q::Svdquant, dequant_as<deq::SvdquantWeight, read_svdquant, svdquant_f32>, linear_svdquant},
};
static_assert(std::size(kNumerics) == quant::kQuantFormatCount, "a numerics row for every QuantFormat");

constexpr bool in_enum_order() {
  for (std::size_t i = 0; i < quant::kQuantFormatCount; ++i)
    if (static_cast<std::size_t>(kNumerics[i].format) != i || !kNumerics[i].dequant) return false;
  return true;
}
static_assert(in_enum_order(), "kNumerics rows follow QuantFormat, each with a dequant");

}  // namespace

const FormatNumerics& format_numerics(quant::QuantFormat f) { return kNumerics[static_cast<std::size_t>(f)]; }

const FormatNumerics* find_numerics(std::string_view format) {
  const quant::FormatSpec* f = quant::find_format(format);
  return f ? &format_numerics(f->format) : nullptr;
}

std::string linear_formats() {
  std::string out;
  for (const FormatNumerics& n : kNumerics)
    if (n.linear) out += (out.empty() ? "" : ", ") + std::string(quant::format_name(n.format));
  return out;
}

LayerResult<numerics::W4a8Layer> read_w4a8_for(const CheckpointReader& c, const quant::Layer& l,
                                               const DequantOptions& o) {
  auto w = read_w4a8(c, l);
  if (!o.frozen_codebook || !w || w.value().codebook) return w;
  if (w.value().bits == 6)
    return not_read_at(Place::layer(l.prefix),
                       "--codebook frozen: a 6-bit layer decodes uniform codes (code - 32) and takes no codebook");
  w.value().codebook = numerics::kW4a8FrozenCodebook;
  return w;
}

}  // namespace safespec
