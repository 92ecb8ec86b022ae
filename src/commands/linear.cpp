#include "src/commands/linear.hpp"

#include <bit>
#include <cstring>
#include <filesystem>
#include <future>

#include "spec/numerics/hadamard.hpp"
#include "spec/numerics/int_linear.hpp"
#include "spec/quant/marker_values.hpp"
#include "spec/quote.hpp"
#include "spec/rule_catalogue.hpp"
#include "src/parse/layer_io.hpp"
#include "src/io/npy.hpp"
#include "src/numerics/dequant_fast.hpp"
#include "src/numerics/w4a8_fast.hpp"
#include "src/numerics/w4a8_weight_fast.hpp"

namespace safespec {

namespace {

using numerics::FloatType;

CommandOutcome from(const LayerError& e) { return {e.refused ? kExitFindings : kExitUsage, "", "safespec: " + e.message + "\n"}; }
CommandOutcome refused(const std::string& layer, const Error& e) {
  return {kExitFindings, "",
          "safespec: layer " + quote_name(layer) + " refused: " + std::string(rule_name(e.rule)) + " at " + e.where.text() + ": " +
              e.message + "\n"};
}

std::string dims(std::uint64_t a, std::uint64_t b) { return "[" + std::to_string(a) + ", " + std::to_string(b) + "]"; }

template <class V>
std::vector<std::uint8_t> le_bytes(std::span<const V> values) {
  std::vector<std::uint8_t> out(values.size() * sizeof(V));
  if constexpr (std::endian::native == std::endian::little) {
    // The host's bytes are already safetensors' order.
    if (!values.empty()) std::memcpy(out.data(), values.data(), out.size());
  } else {
    using U = std::conditional_t<sizeof(V) == 1, std::uint8_t,
                                 std::conditional_t<sizeof(V) == 4, std::uint32_t, std::uint64_t>>;
    for (std::size_t i = 0; i < values.size(); ++i) {
      const U u = std::bit_cast<U>(values[i]);
      for (std::size_t b = 0; b < sizeof(V); ++b) out[i * sizeof(V) + b] = static_cast<std::uint8_t>(u >> (8 * b));
    }
  }
  return out;
}

NamedTensor float_tensor(std::string name, FloatType t, std::vector<std::uint64_t> shape, std::span<const float> v) {
  return {std::move(name), dtype_of(t), std::move(shape), encode_floats(t, v)};
}

struct Input {
  FloatType t = FloatType::BF16;
  std::uint64_t m = 0, k = 0;
  std::vector<float> values;
};

// x from an .npy file: a 2-D '<f4' or '<f2' array, or '<u2' bf16 patterns
// when --input-dtype BF16 says that is what they are.
LayerResult<Input> read_npy_input(const std::string& path, const std::string& tensor,
                                  std::optional<FloatType> declared) {
  if (!tensor.empty())
    return LayerError{path + ": --input-tensor names a tensor of a safetensors file; an .npy file holds one array", false};
  auto a = read_npy_file(path);
  if (!a) return LayerError{a.error(), false};
  const NpyType type = a.value().type;
  FloatType t = type == NpyType::F32 ? FloatType::F32 : FloatType::F16;
  if (type == NpyType::U16) {
    if (declared != FloatType::BF16)
      return LayerError{path + ": '<u2' holds 16-bit patterns: .npy has no bfloat16; pass --input-dtype BF16 to read "
                               "them as bf16", false};
    t = FloatType::BF16;
  } else if (declared && *declared != t) {
    return LayerError{path + ": expected an array of " + std::string(numerics::name(*declared)) + " (--input-dtype), found '" +
                          std::string(npy_descr(type)) + "'", false};
  }
  if (a.value().shape.size() != 2)
    return LayerError{path + ": expected a 2-D array [M, K], found " + std::to_string(a.value().shape.size()) +
                          " dimensions", false};
  return Input{t, a.value().shape[0], a.value().shape[1], decode_floats(t, a.value().data)};
}

LayerResult<Input> read_input(const std::string& path, const std::string& tensor, std::optional<FloatType> declared) {
  if (is_npy_path(path)) return read_npy_input(path, tensor, declared);
  if (declared) return LayerError{path + ": --input-dtype is for .npy inputs; a safetensors tensor names its dtype", false};
  auto c = CheckpointReader::open(path);
  if (!c) return LayerError{c.error().message, false};
  const CheckpointReader& r = *c.value();
  const quant::TensorRef* ref = nullptr;
  if (!tensor.empty()) {
    ref = r.find(tensor);
    if (!ref) return LayerError{path + ": no tensor " + quote_name(tensor), false};
  } else {
    auto loaded = r.only_tensor();
    if (!loaded) return LayerError{path + ": " + loaded.error().message, false};
    ref = loaded.value();
  }
  const TensorEntry& e = *ref->entry;
  const auto t = float_type_of(e.dtype);
  if (!t) return LayerError{path + ": " + Place::tensor(e.name).text() + ": expected dtype F32, BF16 or F16, found " +
                                std::string(dtype_name(e.dtype)), false};
  if (e.shape.size() != 2)
    return LayerError{path + ": " + Place::tensor(e.name).text() + ": expected a 2-D tensor [M, K], found " +
                          std::to_string(e.shape.size()) + " dimensions", false};
  auto b = r.bytes(*ref);
  if (!b) return LayerError{path + ": " + b.error().message, false};
  return Input{*t, e.shape[0], e.shape[1], decode_floats(*t, b.value())};
}

std::optional<std::string> write_views(const std::string& path, std::vector<TensorView> views) {
  auto parts = serialize_parts(std::move(views), std::nullopt);  // the tensors' bytes are written, not copied
  if (!parts) return path + ": " + parts.error().message;
  std::vector<std::span<const std::uint8_t>> all{parts.value().prefix};
  all.insert(all.end(), parts.value().data.begin(), parts.value().data.end());
  auto w = write_file(path, std::span<const std::span<const std::uint8_t>>(all));
  if (!w) return path + ": " + w.error().message;
  return std::nullopt;
}

std::optional<std::string> dump_views(const std::string& dir, const std::vector<TensorView>& tensors) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return "cannot create " + dir + ": " + ec.message();
  for (const TensorView& t : tensors)
    if (auto e = write_views((std::filesystem::path(dir) / (t.name + ".safetensors")).string(), {t})) return e;
  return std::nullopt;
}

std::optional<std::string> dump(const std::string& dir, const std::vector<NamedTensor>& tensors) {
  std::vector<TensorView> views;
  for (const NamedTensor& t : tensors) views.push_back({t.name, t.dtype, t.shape, t.bytes});
  return dump_views(dir, views);
}

CommandOutcome finish(const LinearRequest& r, const NamedTensor& y, const std::vector<NamedTensor>& intermediates) {
  if (!r.dump_dir.empty())
    if (auto e = dump(r.dump_dir, intermediates)) return usage_error(*e);
  if (auto e = write_output(r.out, y)) return usage_error(*e);
  return {kExitOk, "", ""};
}

// --codebook frozen: kitchen's frozen table where the layer stores no
// codebook (a stored one is what every backend decodes with). 6-bit codes are
// uniform and take none.
LayerResult<numerics::W4a8Layer> read_w4a8_frozen(const CheckpointReader& c, const quant::Layer& l) {
  auto w = read_w4a8(c, l);
  if (!w || w.value().codebook) return w;
  if (w.value().bits == 6)
    return LayerError{Place::layer(l.prefix).text() +
                          ": --codebook frozen: a 6-bit layer decodes uniform codes (code - 32) and takes no codebook",
                      false};
  w.value().codebook = numerics::kW4a8FrozenCodebook;
  return w;
}

CommandOutcome linear_w4a8(const LinearRequest& r, const CheckpointReader& c, const quant::Layer& l, const Input& x) {
  auto layer = r.frozen_codebook ? read_w4a8_frozen(c, l) : read_w4a8(c, l);
  if (!layer) return from(layer.error());
  const numerics::W4a8Layer& w = layer.value();
  if (x.k != w.k)
    return usage_error("input " + quote_name(r.input) + " has shape " + dims(x.m, x.k) + ", layer " + quote_name(r.layer) +
                       " expects [M, " + std::to_string(w.k) + "] (its weight is [N, K] = " + dims(w.n, w.k) + ")");
  numerics::W4a8Options o;
  o.semantics = r.semantics;
  o.record_trace = !r.dump_dir.empty();
  const numerics::Activations a{static_cast<std::size_t>(x.m), x.t, x.values};
  // The fast path, bit-identical to the reference (prop_w4a8_fast_test,
  // linear_fuzzer), traces too; the reference stays the definition.
  auto y = numerics::w4a8_linear_fast(w, a, o);
  if (!y) return refused(r.layer, y.error());
  const FloatType to = y.value().out_dtype;
  const NamedTensor out = float_tensor("y", to, {x.m, w.n}, y.value().y);
  if (!y.value().trace) return finish(r, out, {});
  // w4a8_dump_tensors's tensors, written from where they lie. y_ideal is
  // w4a8_ideal's bits (prop_w4a8_dump_fast_test) from the trace's Wq
  // (decode_weight's, prop_w4a8_fast_test); it is computed while the trace
  // is written, which costs the kernel as much as y_ideal costs the CPU.
  auto ideal = std::async(std::launch::async, [&] { return numerics::w4a8_ideal_fast(w, a, {}, y.value().trace->wq); });
  OwnedBytes owned;
  auto written = dump_views(r.dump_dir, w4a8_trace_views(w, a, y.value(), r.semantics, owned));
  const auto y_ideal = ideal.get();
  if (written) return usage_error(*written);
  if (!y_ideal) return refused(r.layer, y_ideal.error());  // not reached: the linear passed the stricter checks
  if (auto e = dump_views(r.dump_dir, {y_ideal_view(w, a, y_ideal.value(), owned)})) return usage_error(*e);
  if (auto e = write_output(r.out, out)) return usage_error(*e);
  return {kExitOk, "", ""};
}

// §7.1 and §6.2-§6.3 through spec/numerics/int_linear.hpp: only the eager
// activation path is modelled there, so --semantics picks the W4A4 backend
// (its linear_dtype divergence) and nothing else.
CommandOutcome linear_int(const LinearRequest& r, const CheckpointReader& c, const quant::Layer& l, const Input& x) {
  const Dtype t = dtype_of(x.t);
  Result<deq::LinearTrace> trace = Error{RuleId::QuantW4a4Shapes, Place{}, ""};
  std::uint64_t n = 0, k = 0;
  std::optional<std::vector<float>> bias;
  if (l.is(quant::QuantFormat::Int8)) {
    auto w = read_int8(c, l);
    if (!w) return from(w.error());
    n = w.value().q.rows, k = w.value().q.cols;
    auto b = read_bias(c, l, n);
    if (!b) return from(b.error());
    if (x.k != k) return usage_error("input has shape " + dims(x.m, x.k) + ", layer expects [M, " + std::to_string(k) + "]");
    trace = deq::int8_linear({deq::Mat<float>(x.m, x.k, x.values), t, std::move(b).value(), deq::Device::Gpu}, w.value());
  } else {
    auto w = read_w4a4(c, l);
    if (!w) return from(w.error());
    n = w.value().packed.rows, k = 2 * w.value().packed.cols;
    auto b = read_bias(c, l, n);
    if (!b) return from(b.error());
    if (x.k != k) return usage_error("input has shape " + dims(x.m, x.k) + ", layer expects [M, " + std::to_string(k) + "]");
    const py::Value* ld = quant::comfy_get(*l.marker, "linear_dtype");
    const auto* s = ld ? std::get_if<std::string>(&ld->data) : nullptr;
    const auto dt = s && *s == "int8" ? deq::W4a4LinearDtype::Int8 : deq::W4a4LinearDtype::Int4;
    const auto be = r.semantics == numerics::Semantics::Cuda ? deq::Backend::Cuda : deq::Backend::Eager;
    trace = deq::convrot_w4a4_linear({deq::Mat<float>(x.m, x.k, x.values), t, std::move(b).value(), deq::Device::Gpu},
                                     w.value(), dt, be);
  }
  if (!trace) return refused(r.layer, trace.error());
  const deq::LinearTrace& tr = trace.value();
  std::vector<NamedTensor> more;
  more.push_back(float_tensor("rotated", x.t, {tr.xr.rows, tr.xr.cols}, tr.xr.v));
  more.push_back(float_tensor("xs", FloatType::F32, {x.m}, tr.x_scale));
  more.push_back({"xq", Dtype::I8, {tr.xq.rows, tr.xq.cols}, le_bytes<std::int8_t>(tr.xq.v)});
  more.push_back({"acc", Dtype::I64, {tr.acc.rows, tr.acc.cols}, le_bytes<std::int64_t>(tr.acc.v)});
  more.push_back(float_tensor("y", x.t, {tr.y.rows, tr.y.cols}, tr.y.v));
  return finish(r, float_tensor("y", x.t, {x.m, n}, tr.y.v), more);
}

// comfy-quants' reference linear (numerics §5, quant-layers.md L20): the
// fused runtime's int4 activations are not modelled, so there is one
// semantics, and the output is binary32 as the reference returns it.
CommandOutcome linear_svdquant(const LinearRequest& r, const CheckpointReader& c, const quant::Layer& l, const Input& x) {
  auto w = read_svdquant(c, l);
  if (!w) return from(w.error());
  const std::uint64_t n = w.value().packed.rows, k = 2 * w.value().packed.cols;
  if (x.k != k) return usage_error("input has shape " + dims(x.m, x.k) + ", layer expects [M, " + std::to_string(k) + "]");
  auto smooth = read_svdquant_smooth(c, l, k);
  if (!smooth) return from(smooth.error());
  auto b = read_bias(c, l, n);
  if (!b) return from(b.error());
  const auto y = deq::linear_svdquant_w4a4(deq::Mat<float>(x.m, x.k, x.values), smooth.value(), w.value(),
                                           b.value() ? &*b.value() : nullptr);
  if (!y) return refused(r.layer, y.error());
  const deq::SvdquantLinear& v = y.value();
  std::vector<NamedTensor> more;
  more.push_back(float_tensor("xs", FloatType::F32, {v.xs.rows, v.xs.cols}, v.xs.v));
  more.push_back(float_tensor("w", FloatType::F32, {v.w.rows, v.w.cols}, v.w.v));
  more.push_back(float_tensor("y", FloatType::F32, {v.y.rows, v.y.cols}, v.y.v));
  return finish(r, float_tensor("y", FloatType::F32, {x.m, n}, v.y.v), more);
}

}  // namespace

std::optional<std::string> write_tensors(const std::string& path, const std::vector<NamedTensor>& tensors) {
  std::vector<TensorView> views;
  for (const NamedTensor& t : tensors) views.push_back({t.name, t.dtype, t.shape, t.bytes});
  return write_views(path, std::move(views));
}

std::optional<std::string> write_tensor(const std::string& path, const NamedTensor& t) {
  return write_views(path, {{t.name, t.dtype, t.shape, t.bytes}});
}

std::optional<std::string> write_output(const std::string& path, const NamedTensor& t) {
  if (!is_npy_path(path)) return write_tensor(path, t);
  NpyType type = NpyType::F32;
  if (t.dtype == Dtype::F16) type = NpyType::F16;
  else if (t.dtype == Dtype::BF16) type = NpyType::U16;
  else if (t.dtype != Dtype::F32)
    return path + ": expected an F32, F16 or BF16 output for .npy, found " + std::string(dtype_name(t.dtype));
  auto w = write_npy_file(path, {type, t.shape, t.bytes});
  if (!w) return w.error();
  return std::nullopt;
}

namespace {

// A vector's bytes as safetensors stores them: the vector itself on a
// little-endian host, else little-endian copies kept in `owned`.
template <class V>
std::span<const std::uint8_t> le_view(std::span<const V> v, OwnedBytes& owned) {
  if constexpr (std::endian::native == std::endian::little)
    return {reinterpret_cast<const std::uint8_t*>(v.data()), v.size_bytes()};
  owned.push_back(le_bytes(v));  // moving a vector keeps its buffer: earlier views stay valid
  return owned.back();
}

std::span<const std::uint8_t> float_view(FloatType t, std::span<const float> v, OwnedBytes& owned) {
  if (t == FloatType::F32) return le_view(v, owned);
  owned.push_back(encode_floats(t, v));
  return owned.back();
}

}  // namespace

std::vector<TensorView> w4a8_trace_views(const numerics::W4a8Layer& w, const numerics::Activations& a,
                                         const numerics::W4a8Output& y, numerics::Semantics semantics,
                                         OwnedBytes& owned) {
  std::vector<TensorView> more;
  if (!y.trace) return more;
  const numerics::W4a8Trace& t = *y.trace;
  const FloatType to = y.out_dtype;
  const std::uint64_t M = a.m, N = w.n, K = w.k;
  const auto floats = [&](const char* name, FloatType ft, std::vector<std::uint64_t> shape, std::span<const float> v) {
    more.push_back({name, dtype_of(ft), std::move(shape), float_view(ft, v, owned)});
  };
  more.push_back({"wq", Dtype::I8, {N, K}, le_view<std::int8_t>(t.wq, owned)});
  // cuda's rotated values are binary32 (cuda.3); eager's are T_x (eager.2).
  const FloatType rt = semantics == numerics::Semantics::Cuda ? FloatType::F32 : a.dtype;
  if (!t.rotated.empty()) floats("rotated", rt, {M, K}, t.rotated);
  if (!t.amax.empty()) floats("amax", FloatType::F32, {M}, t.amax);
  if (!t.xs.empty()) floats("xs", FloatType::F32, {M}, t.xs);
  if (!t.divisor.empty()) floats("divisor", FloatType::F32, {M}, t.divisor);
  if (!t.xq.empty()) more.push_back({"xq", Dtype::I8, {M, K}, le_view<std::int8_t>(t.xq, owned)});
  if (!t.acc.empty()) more.push_back({"acc", Dtype::I32, {M, N}, le_view<std::int32_t>(t.acc, owned)});
  if (!t.y_epilogue.empty()) floats("y_epilogue", to, {M, N}, t.y_epilogue);
  if (!t.w_dequant.empty()) floats("w_dequant", a.dtype, {N, K}, t.w_dequant);
  floats("y", to, {M, N}, t.y);
  return more;
}

TensorView y_ideal_view(const numerics::W4a8Layer& w, const numerics::Activations& a, std::span<const double> y_ideal,
                        OwnedBytes& owned) {
  return {"y_ideal", Dtype::F64, {a.m, w.n}, le_view(y_ideal, owned)};
}

std::vector<NamedTensor> w4a8_trace_tensors(const numerics::W4a8Layer& w, const numerics::Activations& a,
                                            const numerics::W4a8Output& y, numerics::Semantics semantics,
                                            std::span<const double> y_ideal) {
  OwnedBytes owned;
  std::vector<NamedTensor> out;
  std::vector<TensorView> views = w4a8_trace_views(w, a, y, semantics, owned);
  if (!views.empty()) views.push_back(y_ideal_view(w, a, y_ideal, owned));
  for (const TensorView& v : views)
    out.push_back({v.name, v.dtype, v.shape, std::vector<std::uint8_t>(v.data.begin(), v.data.end())});
  return out;
}

Result<std::vector<NamedTensor>> w4a8_dump_tensors(const numerics::W4a8Layer& w, const numerics::Activations& a,
                                                   const numerics::W4a8Output& y, numerics::Semantics semantics) {
  if (!y.trace) return std::vector<NamedTensor>{};
  // w4a8_ideal's bits (prop_dequant_fast_test), from the trace's Wq (decode_weight's, prop_w4a8_fast_test).
  auto ideal = numerics::w4a8_ideal_fast(w, a, {}, y.trace->wq);
  if (!ideal) return ideal.error();
  return w4a8_trace_tensors(w, a, y, semantics, ideal.value());
}

Result<deq::Mat<float>> w4a8_dequant_f32(const numerics::W4a8Layer& l) {
  auto w = numerics::w4a8_dequant_fast(l);  // w4a8_dequant's bits (prop_dequant_fast_test)
  if (!w) return w.error();
  return deq::Mat<float>(l.n, l.k, std::move(w).value());
}

namespace {

// One stored weight of a format through its reference dequantization, to F32.
template <class Stored>
using StoredReader = LayerResult<Stored> (*)(const CheckpointReader&, const quant::Layer&);
template <class Stored>
using Dequant = Result<deq::Mat<float>> (*)(const Stored&);

template <class Stored, StoredReader<Stored> read, Dequant<Stored> compute>
CommandOutcome dequant_as(const DequantRequest& r, const CheckpointReader& c, const quant::Layer& l) {
  auto stored = read(c, l);
  if (!stored) return from(stored.error());
  const Result<deq::Mat<float>> w = compute(stored.value());
  if (!w) return refused(r.layer, w.error());
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

// W4A8 to a safetensors file, a block of rows at a time (the other formats'
// layers are a quarter the size at most): the F32 matrix is 8 times the
// packed layer, and faulting in a buffer that size costs more than the
// dequantization itself. The bytes are dequant_as's (W4a8DequantRows is
// w4a8_dequant_fast's rows).
CommandOutcome dequant_w4a8_streamed(const DequantRequest& r, const CheckpointReader& c, const quant::Layer& l) {
  if (std::endian::native != std::endian::little || is_npy_path(r.out))
    return r.frozen_codebook ? dequant_as<numerics::W4a8Layer, read_w4a8_frozen, w4a8_dequant_f32>(r, c, l)
                             : dequant_as<numerics::W4a8Layer, read_w4a8, w4a8_dequant_f32>(r, c, l);
  auto stored = r.frozen_codebook ? read_w4a8_frozen(c, l) : read_w4a8(c, l);
  if (!stored) return from(stored.error());
  const numerics::W4a8Layer& w = stored.value();
  auto rows = numerics::W4a8DequantRows::make(w);
  if (!rows) return refused(r.layer, rows.error());
  auto prefix = serialize_prefix({{"weight", Dtype::F32, {w.n, w.k}, {}}}, std::nullopt);
  if (!prefix) return usage_error(r.out + ": " + prefix.error().message);
  constexpr std::size_t kBlockBytes = std::size_t{4} << 20;
  const std::size_t block_rows = std::max<std::size_t>(1, kBlockBytes / std::max<std::size_t>(1, w.k * 4));
  std::vector<float> block(std::min(block_rows, w.n) * w.k);
  bool prefix_given = false;
  std::size_t next_row = 0;
  const auto next = [&]() -> std::span<const std::uint8_t> {
    if (!prefix_given) {
      prefix_given = true;
      return prefix.value();
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

// The numerics column of the format table (spec/quant/formats.hpp): it reads
// tensor bytes, so it lives here, one row per QuantFormat in its order.
struct FormatNumerics {
  quant::QuantFormat format;
  CommandOutcome (*dequant)(const DequantRequest&, const CheckpointReader&, const quant::Layer&);
  // null: `safespec linear` does not model the format's kernel yet.
  CommandOutcome (*linear)(const LinearRequest&, const CheckpointReader&, const quant::Layer&, const Input&);
};

using Q = quant::QuantFormat;
constexpr FormatNumerics kNumerics[] = {
    {Q::Fp8E4m3, dequant_as<deq::Fp8Weight, read_fp8, fp8_f32>, nullptr},
    {Q::Fp8E5m2, dequant_as<deq::Fp8Weight, read_fp8, fp8_f32>, nullptr},
    {Q::Nvfp4, dequant_as<deq::Nvfp4Weight, read_nvfp4, nvfp4_f32>, nullptr},
    {Q::Mxfp8, dequant_as<deq::Mxfp8Weight, read_mxfp8, mxfp8_f32>, nullptr},
    {Q::Int8, dequant_as<deq::Int8Weight, read_int8, int8_f32>, linear_int},
    {Q::W4a4, dequant_as<deq::W4a4Weight, read_w4a4, w4a4_f32>, linear_int},
    {Q::W4a8, dequant_w4a8_streamed, linear_w4a8},
    {Q::Awq, dequant_as<deq::AwqWeight, read_awq, awq_f32>, nullptr},
    {Q::Svdquant, dequant_as<deq::SvdquantWeight, read_svdquant, svdquant_f32>, linear_svdquant},
};
static_assert(std::size(kNumerics) == quant::kQuantFormatCount);

constexpr bool in_enum_order() {
  for (std::size_t i = 0; i < quant::kQuantFormatCount; ++i)
    if (static_cast<std::size_t>(kNumerics[i].format) != i) return false;
  return true;
}
static_assert(in_enum_order(), "kNumerics rows follow QuantFormat");

const FormatNumerics* numerics_of(const quant::Layer& l) {
  const quant::FormatSpec* f = quant::find_format(l.format);
  return f ? &kNumerics[static_cast<std::size_t>(f->format)] : nullptr;
}

std::string linear_formats() {
  std::string out;
  for (const FormatNumerics& n : kNumerics)
    if (n.linear) out += (out.empty() ? "" : ", ") + std::string(quant::format_name(n.format));
  return out;
}

}  // namespace

CommandOutcome run_linear(const LinearRequest& r) {
  auto c = CheckpointReader::open(r.checkpoint);
  if (!c) return from(c.error());
  auto l = c.value()->layer(r.layer);
  if (!l) return from(l.error());
  if (auto s = c.value()->refuse_invalid(*l.value(), r.semantics == numerics::Semantics::Cuda); !s)
    return from(s.error());
  auto x = read_input(r.input, r.input_tensor, r.input_dtype);
  if (!x) return from(x.error());
  const FormatNumerics* n = numerics_of(*l.value());
  if (n && n->linear) return n->linear(r, *c.value(), *l.value(), x.value());
  return usage_error("layer " + quote_name(r.layer) + " has format " + quote_name(l.value()->format) +
               ": `linear` is not supported yet for it (supported: " + linear_formats() + ")");
}

CommandOutcome run_dequant(const DequantRequest& r) {
  auto c = CheckpointReader::open(r.checkpoint);
  if (!c) return from(c.error());
  auto l = c.value()->layer(r.layer);
  if (!l) return from(l.error());
  if (auto s = c.value()->refuse_invalid(*l.value(), false); !s) return from(s.error());
  const FormatNumerics* n = numerics_of(*l.value());
  if (!n)
    return usage_error("layer " + quote_name(r.layer) + " has format " + quote_name(l.value()->format) +
                       ", which safespec cannot dequantize");
  return n->dequant(r, *c.value(), *l.value());
}

}  // namespace safespec
