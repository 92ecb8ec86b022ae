// The data rules (tensor values, read with --data) and the header-level int32 K bound.
//
// No consumer looks at tensor values: a NaN, zero or negative scale, a NaN
// E8M0 block scale or an unswizzled block-scale matrix loads without a word
// and every GEMM of the layer computes garbage. So every Error-severity data
// finding carries a MisLoads verdict (error "", message "") for ComfyUI,
// comfy-kitchen and, for the formats sglang runs (S9.2-S9.6 plus mxfp8),
// sglang. The range warnings (codes the quantizer never emits, codebook
// order) decode to well-defined values and get no verdicts.
//
// Each rule reports once per tensor: the count of bad elements, the first
// one's index and value. Scans (data_scan.hpp) are single O(n) passes
// without allocation, fed the bytes piece by piece (TensorData::scan), so no
// tensor is ever held whole.
#include "spec/quant/data_rules.hpp"

#include <cmath>
#include <string>

#include "spec/checked_math.hpp"
#include "spec/quant/data_scan.hpp"
#include "spec/quant/logical_size.hpp"
#include "spec/python/python_repr.hpp"
#include "spec/quant/marker_values.hpp"
#include "spec/quant/order.hpp"
#include "spec/quant/render.hpp"
#include "spec/quote.hpp"

namespace safespec::quant {

namespace {

using Bytes = std::span<const std::uint8_t>;

using scan::Bad;
using scan::Reading;
using scan::reading_name;
using scan::reading_of;

std::string n_of(const Bad& b) { return py::repr_uint(b.count) + " of " + py::repr_uint(b.total); }

// ---------------------------------------------------------------- verdicts

// sglang loads and runs the formats it resolves a config for (S11).
bool sglang_runs(const Layer& l) {
  const FormatSpec* f = find_format(l.format);
  return f && !f->sglang_config.empty();
}

// Data is used at the first forward pass, after every load-time check, so
// these positions sort after all of a consumer's load-time ones: sglang
// after phase 5, ComfyUI and kitchen at the layer's run time. A MisLoads
// verdict never decides a consumer's verdict; the order only ranks it.
constexpr std::uint32_t kDataStep = 100;

std::vector<Verdict> misloads(const Layer& l, std::uint32_t step) {
  std::vector<Verdict> v;
  if (sglang_runs(l))
    v.push_back(Verdict{Consumer::Sglang, Effect::MisLoads, "", "", CheckOrder{6, order::u32(l.index), step, 0}});
  v.push_back(Verdict{Consumer::Comfyui, Effect::MisLoads, "", "", order::kt_operands(l.index, step)});
  v.push_back(Verdict{Consumer::Kitchen, Effect::MisLoads, "", "", order::kt_operands(l.index, step)});
  return v;
}

// ---------------------------------------------------------------- rules

// Streams a tensor's bytes through `feed`: true when every byte was fed;
// else the tensor is listed as unchecked and what `feed` saw must be
// discarded. `judged`: the rule's findings carry MisLoads verdicts, so the
// consumers they would name could mis-load unseen (the range warnings name
// none).
template <class Feed>
bool stream(const Layer& l, const TensorRef& ref, const TensorData& data, Sink& out, bool judged, Feed& feed) {
  const TensorScan r = data.scan(ref, [&feed](Bytes b) { feed(b); });
  if (r) return true;
  std::vector<Consumer> consumers;
  if (judged)
    for (const Verdict& v : misloads(l, 0)) consumers.push_back(v.consumer);
  out.skip(ref.file, "data rules of tensor " + quote_name(ref.entry->name), r.error(), std::move(consumers));
  return false;
}

enum class ScaleKind : unsigned char {
  Positive,  // a global, per-tensor, per-row or per-channel scale
  Block,     // an nvfp4 block scale: an all-zero block legitimately has scale 0
  Ignored,   // loaded and never used by any consumer (mxfp8 input_scale, L13)
};

// CQ-DATA-SCALE (L10-L16). A tensor of a dtype no reading applies to is
// neither read nor listed: no rule would look at its bytes.
void check_scale(const Layer& l, const TensorTable& t, const TensorData& data, Sink& out, std::string_view suffix,
                 ScaleKind kind, bool u8_as_e4m3, std::uint32_t step) {
  const TensorRef* ref = t.find(tensor_name(l, suffix));
  if (!ref) return;
  const auto r = reading_of(ref->entry->dtype, u8_as_e4m3);
  if (!r) return;
  // The comfy-kitchen nvfp4 quantizer gives an all-zero block the scale 0
  // (amax 0); only the weight bytes could tell it from a bad one, so block
  // scales need only be finite and not negative. -0.0 == 0 passes.
  const bool block = kind == ScaleKind::Block;
  scan::ValueScan s(*r, [block](double v) { return !std::isfinite(v) || (block ? v < 0 : !(v > 0)); });
  if (!stream(l, *ref, data, out, kind != ScaleKind::Ignored, s)) return;
  const Bad& b = s.result();
  if (b.count == 0) return;
  std::string msg = block ? "block scale values must be finite and >= 0" : "values must be finite and > 0";
  msg += ", read as " + std::string(reading_name(*r)) + ": " + n_of(b) + " fail, the first at index " +
         py::repr_uint(b.first) + " is " + py::repr_float(b.value);
  out.add(ref->file, RuleId::DataScale, Place::tensor(ref->entry->name), std::move(msg),
          kind == ScaleKind::Ignored ? std::vector<Verdict>{} : misloads(l, step));
}

// CQ-DATA-S-REL (L16): E4M3 has no infinity, so for it this is "not NaN";
// an F32 s_rel that is infinite is reported too, because level 0 (code 8
// without a codebook) times inf is NaN in W4A8.1 (quant-numerics.md §5.2).
// Negative values are allowed: they only flip a group's sign.
void check_s_rel(const Layer& l, const TensorTable& t, const TensorData& data, Sink& out) {
  const TensorRef* ref = t.find(tensor_name(l, "weight_s_rel"));
  if (!ref) return;
  const Dtype d = ref->entry->dtype;
  if (d != Dtype::F8_E4M3 && d != Dtype::U8 && d != Dtype::F32) return;
  const Reading r = d == Dtype::F32 ? Reading::F32 : Reading::E4M3;
  scan::ValueScan s(r, [](double v) { return !std::isfinite(v) || v == 0; });
  if (!stream(l, *ref, data, out, true, s)) return;
  const Bad& b = s.result();
  if (b.count == 0) return;
  out.add(ref->file, RuleId::DataSRel, Place::tensor(ref->entry->name),
          "values must be finite and non-zero, read as " + std::string(reading_name(r)) + ": " + n_of(b) +
              " fail, the first at index " + py::repr_uint(b.first) + " is " + py::repr_float(b.value),
          misloads(l, kDataStep + 2));
}

// CQ-DATA-CODEBOOK and CQ-DATA-CODEBOOK-ORDER (L16): the codebook is a
// code -> level table; the kitchen quantizers write an ascending Lloyd-Max
// table (quant-numerics.md §5.11). Order is only judged on a finite table,
// so both are counted in one pass and the order kept only for such a table.
void check_codebook(const Layer& l, const TensorTable& t, const TensorData& data, Sink& out) {
  const TensorRef* ref = t.find(tensor_name(l, "weight_codebook"));
  if (!ref) return;
  const auto r = reading_of(ref->entry->dtype, false);
  if (!r) return;
  const std::size_t w = scan::width(*r);
  Bad b;     // not finite
  Bad o;     // steps that do not increase
  double prev = 0;
  double first_prev = 0;
  auto feed = [&](Bytes bytes) {
    const std::size_t n = bytes.size() / w;
    for (std::size_t j = 0; j < n; ++j, ++b.total) {
      const std::uint8_t* p = bytes.data() + j * w;
      const double v = scan::decode(*r, p);
      if (!std::isfinite(v)) b.note(b.total, v);
      if (b.total > 0 && !(v > prev) && o.count++ == 0) {
        o.first = b.total;
        o.value = v;
        first_prev = prev;
      }
      prev = v;
    }
  };
  if (!stream(l, *ref, data, out, true, feed)) return;
  const Place where = Place::tensor(ref->entry->name);
  if (b.count != 0) {
    out.add(ref->file, RuleId::DataCodebook, where,
            "values must be finite, read as " + std::string(reading_name(*r)) + ": " + n_of(b) +
                " fail, the first at index " + py::repr_uint(b.first) + " is " + py::repr_float(b.value),
            misloads(l, kDataStep + 3));
    return;
  }
  if (o.count == 0) return;
  o.total = b.total > 0 ? b.total - 1 : 0;
  out.add(ref->file, RuleId::DataCodebookOrder, where,
          "values must increase strictly (a Lloyd-Max table): " + py::repr_uint(o.count) + " of " +
              py::repr_uint(o.total) + " steps do not, the first at index " + py::repr_uint(o.first) + ": " +
              py::repr_float(o.value) + " after " + py::repr_float(first_prev),
          {});
}

// CQ-DATA-E8M0 (L13, quant-numerics.md §2.3): 0xFF is NaN for PyTorch's
// float8_e8m0fnu and +inf for comfy-kitchen's decoder; the quantizer never
// writes it. Every cell is scanned, padding included.
void check_e8m0(const Layer& l, const TensorTable& t, const TensorData& data, Sink& out) {
  const TensorRef* ref = t.find(tensor_name(l, "weight_scale"));
  if (!ref) return;
  const Dtype d = ref->entry->dtype;
  if (d != Dtype::U8 && d != Dtype::F8_E8M0) return;
  scan::ByteScan s(0xFF);
  if (!stream(l, *ref, data, out, true, s)) return;
  const Bad& b = s.result();
  if (b.count == 0) return;
  out.add(ref->file, RuleId::DataE8m0, Place::tensor(ref->entry->name),
          "E8M0 block scales must not be 0xFF (NaN): " + n_of(b) + " are, the first at index " +
              py::repr_uint(b.first),
          misloads(l, kDataStep + 4));
}

std::optional<std::uint64_t> roundup(std::uint64_t v, std::uint64_t m) {
  const auto s = checked_add(v, m - 1);
  if (!s) return std::nullopt;
  return *s / m * m;
}

// CQ-DATA-SWIZZLE-PADDING (L3, quant-numerics.md §4). R and Cb come from the
// packed weight as the canonical writer lays it out: nvfp4 weight U8/I8
// [R, K/2] with Cb = K/16; mxfp8 weight F8_E4M3 [R, K] with Cb = K/32. Any
// other weight or scale geometry is left to the shape rules. A padding cell
// that is not zero is the mark of a scale matrix stored unswizzled (its real
// values spill into the padding) or swizzled twice (sglang PR #38028), which
// every consumer then reads permuted: hence the MisLoads verdicts.
void check_swizzle_padding(const Layer& l, const TensorTable& t, const TensorData& data, Sink& out, bool nvfp4) {
  const TensorRef* w = t.find(tensor_name(l, "weight"));
  const TensorRef* s = t.find(tensor_name(l, "weight_scale"));
  if (!w || !s) return;
  const auto& ws = w->entry->shape;
  const auto& ss = s->entry->shape;
  if (ws.size() != 2 || ss.size() != 2) return;
  const Dtype wd = w->entry->dtype;
  const Dtype sd = s->entry->dtype;
  std::uint64_t cb = 0;
  if (nvfp4) {
    if ((wd != Dtype::U8 && wd != Dtype::I8) || (sd != Dtype::U8 && sd != Dtype::F8_E4M3)) return;
    if (ws[1] % 8 != 0) return;  // K = 2 * ws[1] must be a multiple of 16
    cb = ws[1] / 8;
  } else {
    if (wd != Dtype::F8_E4M3 || (sd != Dtype::U8 && sd != Dtype::F8_E8M0)) return;
    if (ws[1] % 32 != 0) return;
    cb = ws[1] / 32;
  }
  const std::uint64_t rows = ws[0];
  const auto rp = roundup(rows, 128);
  const auto cp = roundup(cb, 4);
  if (!rp || !cp || *rp != ss[0] || *cp != ss[1] || *cp == 0) return;
  const auto cells = checked_mul(*rp, *cp);
  if (!cells) return;
  // Bytes that do not match the shape are left to the offset rules; that is
  // known from the offsets, before reading.
  if (s->entry->end < s->entry->begin || s->entry->end - s->entry->begin != *cells) return;
  scan::PaddingScan p(rows, cb, *cp / 4);
  if (!stream(l, *s, data, out, true, p) || p.bytes() != *cells) return;
  Bad bad = p.result();
  if (bad.count == 0) return;
  bad.total = *cells - rows * cb;  // rows <= R', cb <= C': no overflow
  out.add(s->file, RuleId::DataSwizzlePadding, Place::tensor(s->entry->name),
          "padding cells of the swizzled " + shape_repr(ss) + " block scales of " + py::repr_uint(rows) +
              " rows x " + py::repr_uint(cb) + " blocks (L3) must be zero: " + n_of(bad) +
              " are not, the first at offset " + py::repr_uint(bad.first) + " (row " + py::repr_uint(p.first_row) +
              ", column " + py::repr_uint(p.first_col) + ") is " +
              py::repr_uint(static_cast<std::uint64_t>(bad.value)),
          misloads(l, kDataStep + 5));
}

// CQ-DATA-W4A4-RANGE (L2, L15): signed low-nibble-first codes; the
// quantizer clamps to -7..7 (quant-numerics.md §6.1), so -8 (nibble 8) is
// decodable but never written by it. Index: the unpacked element index.
void check_w4a4_range(const Layer& l, const TensorTable& t, const TensorData& data, Sink& out) {
  const TensorRef* ref = t.find(tensor_name(l, "weight"));
  if (!ref) return;
  const Dtype d = ref->entry->dtype;
  if (d != Dtype::I8 && d != Dtype::U8) return;
  scan::NibbleScan s;
  if (!stream(l, *ref, data, out, false, s)) return;
  const Bad& b = s.result();
  if (b.count == 0) return;
  out.add(ref->file, RuleId::DataW4a4Range, Place::tensor(ref->entry->name),
          "convrot_w4a4 codes must lie in -7..7 (what the quantizer emits): " + n_of(b) +
              " are -8, the first at element " + py::repr_uint(b.first),
          {});
}

// CQ-DATA-INT8-RANGE (L14): the quantizer emits -127..127; -128 loads fine
// (symmetric scale, one extra step on the negative side).
void check_int8_range(const Layer& l, const TensorTable& t, const TensorData& data, Sink& out) {
  const TensorRef* ref = t.find(tensor_name(l, "weight"));
  if (!ref) return;
  const Dtype d = ref->entry->dtype;
  if (d != Dtype::I8 && d != Dtype::U8) return;
  scan::ByteScan s(0x80);
  if (!stream(l, *ref, data, out, false, s)) return;
  const Bad& b = s.result();
  if (b.count == 0) return;
  out.add(ref->file, RuleId::DataInt8Range, Place::tensor(ref->entry->name),
          "int8 weights must lie in -127..127 (what the quantizer emits): " + n_of(b) + " are -128, the first at index " +
              py::repr_uint(b.first),
          {});
}

}  // namespace

// ---------------------------------------------------------------- K bound

// NUM-K-INT32-OVERFLOW bounds from the value ranges of each integer GEMM's
// operands (the accumulator is int32 in every case):
// - int8_tensorwise: activations -128..127 (quant-numerics.md §7.1 step 3 =
//   §5.4 eager.6), weights as stored: I8 can hold -128, so 128 * 128 per
//   product. safespec takes the stored range, not the quantizer's -127..127
//   (CQ-DATA-INT8-RANGE warns on -128): the header alone cannot exclude it.
// - asym_w4a8_int8: activations -128..127, decoded weights clamped to
//   -127..127 (§5.2), so 128 * 127: K <= 132104, the bound §5.3 cuda.7 derives.
// - convrot_w4a4, linear_dtype "int4" (default; eager always, §6.3):
//   activations -7..7 (§6.2), codes -8..7 (§2.5): 7 * 8.
// - convrot_w4a4, linear_dtype "int8" (CUDA): activations -128..127, codes
//   widened to int8 -8..7 (§6.3): 128 * 8. Any linear_dtype other than a
//   plain "int4" or absent is judged by this smaller bound.
std::optional<KBound> k_bound_int8(const LayerCheck&) {
  return KBound{int32_k_bound(128 * 128, 128 * 127), "int8 x int8", "§7.1"};
}

std::optional<KBound> k_bound_w4a8(const LayerCheck&) {
  return KBound{int32_k_bound(128 * 127, 128 * 127), "int8 x int8", "§5.3 cuda.7"};
}

std::optional<KBound> k_bound_w4a4(const LayerCheck& c) {
  const py::Value* ld = comfy_get(*c.l.marker, "linear_dtype");
  const auto* s = ld ? std::get_if<std::string>(&ld->data) : nullptr;
  if (!ld || (s && *s == "int4")) return KBound{int32_k_bound(7 * 8, 7 * 8), "int4 x int4", "§6.2"};
  return KBound{int32_k_bound(128 * 8, 127 * 8), "int8 x int4", "§6.3"};
}

// ---------------------------------------------------------------- per format

void data_fp8(const LayerCheck& c, const TensorData& data) {
  check_scale(c.l, c.t, data, c.out, "weight_scale", ScaleKind::Positive, false, kDataStep + 0);
  check_scale(c.l, c.t, data, c.out, "input_scale", ScaleKind::Positive, false, kDataStep + 1);
}

void data_nvfp4(const LayerCheck& c, const TensorData& data) {
  check_scale(c.l, c.t, data, c.out, "weight_scale", ScaleKind::Block, true, kDataStep + 0);
  check_scale(c.l, c.t, data, c.out, "weight_scale_2", ScaleKind::Positive, false, kDataStep + 0);
  check_scale(c.l, c.t, data, c.out, "input_scale", ScaleKind::Positive, false, kDataStep + 1);
  check_swizzle_padding(c.l, c.t, data, c.out, true);
}

void data_mxfp8(const LayerCheck& c, const TensorData& data) {
  check_e8m0(c.l, c.t, data, c.out);
  check_swizzle_padding(c.l, c.t, data, c.out, false);
  check_scale(c.l, c.t, data, c.out, "input_scale", ScaleKind::Ignored, false, kDataStep + 1);
}

void data_int8(const LayerCheck& c, const TensorData& data) {
  check_scale(c.l, c.t, data, c.out, "weight_scale", ScaleKind::Positive, false, kDataStep + 0);
  check_int8_range(c.l, c.t, data, c.out);
}

void data_w4a4(const LayerCheck& c, const TensorData& data) {
  check_scale(c.l, c.t, data, c.out, "weight_scale", ScaleKind::Positive, false, kDataStep + 0);
  check_w4a4_range(c.l, c.t, data, c.out);
}

void data_w4a8(const LayerCheck& c, const TensorData& data) {
  // weight_scale is neither required nor read for W4A8 (L16).
  check_scale(c.l, c.t, data, c.out, "weight_s_channel", ScaleKind::Positive, false, kDataStep + 0);
  check_s_rel(c.l, c.t, data, c.out);
  check_codebook(c.l, c.t, data, c.out);
}

void check_layer_k_bound(const LayerCheck& c) {
  if (!c.format.k_bound) return;
  const auto bound = c.format.k_bound(c);
  if (!bound) return;
  const TensorRef* w = c.weight();
  if (!w) return;
  const std::optional<std::uint64_t> k = logical_k(layer_packing(c.format, c.l, c.t), w->entry->shape);
  if (k && *k <= bound->max_k) return;
  // Exact past 2^64, as Python's K; empty when the weight has no K to bound.
  const std::string k_text = logical_k_text(layer_packing(c.format, c.l, c.t), w->entry->shape);
  if (k_text.empty()) return;
  // No verdicts: overflow needs operands near both range ends over the whole
  // row, which the header cannot show; beyond the bound the CUDA MMA
  // saturates and the eager result is library-defined (§5.13 U9).
  c.add(RuleId::QuantKInt32,
          "K = " + k_text + " exceeds " + py::repr_uint(bound->max_k) + ", the largest K for which the int32 " +
              "accumulator of the " + std::string(bound->gemm) + " GEMM cannot overflow (quant-numerics.md " +
              std::string(bound->cite) + ")",
          {});
}

}  // namespace safespec::quant
