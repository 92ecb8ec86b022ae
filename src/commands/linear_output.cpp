// The files `linear` and `dequant` read and write: the activations (a
// safetensors tensor or an .npy array), the output, and the --dump tensors.
#include <bit>
#include <filesystem>

#include "spec/quote.hpp"
#include "src/commands/linear_paths.hpp"
#include "src/io/npy.hpp"
#include "src/numerics/w4a8_weight_fast.hpp"

namespace safespec {

using numerics::FloatType;

CommandOutcome outcome_of(const LayerError& e) {
  return {e.refused ? kExitFindings : kExitUsage, "", "safespec: " + e.message + "\n"};
}

CommandOutcome refused(const std::string& layer, const Error& e) { return outcome_of(values_refused(layer, e)); }

std::string dims(std::uint64_t a, std::uint64_t b) { return "[" + std::to_string(a) + ", " + std::to_string(b) + "]"; }

namespace {

// x from an .npy file: a 2-D '<f4' or '<f2' array, or '<u2' bf16 patterns
// when --input-dtype BF16 says that is what they are.
LayerResult<LinearInput> read_npy_input(const std::string& path, const std::string& tensor,
                                  std::optional<FloatType> declared) {
  if (!tensor.empty())
    return not_read(path, "--input-tensor names a tensor of a safetensors file; an .npy file holds one array");
  auto a = read_npy_file(path);
  if (!a) return not_read(a.error());  // read_npy_file names the file
  const NpyType type = a.value().type;
  FloatType t = type == NpyType::F32 ? FloatType::F32 : FloatType::F16;
  if (type == NpyType::U16) {
    if (declared != FloatType::BF16)
      return not_read(path,
                      "'<u2' holds 16-bit patterns: .npy has no bfloat16; pass --input-dtype BF16 to read them as bf16");
    t = FloatType::BF16;
  } else if (declared && *declared != t) {
    return not_read(path, "expected an array of " + std::string(numerics::name(*declared)) + " (--input-dtype), found '" +
                              std::string(npy_descr(type)) + "'");
  }
  if (a.value().shape.size() != 2)
    return not_read(path, "expected a 2-D array [M, K], found " + std::to_string(a.value().shape.size()) + " dimensions");
  return LinearInput{t, a.value().shape[0], a.value().shape[1], decode_floats(t, a.value().data)};
}

}  // namespace

NamedTensor float_tensor(std::string name, FloatType t, std::vector<std::uint64_t> shape, std::span<const float> v) {
  return {std::move(name), dtype_of(t), std::move(shape), encode_floats(t, v)};
}

LayerResult<LinearInput> read_linear_input(const std::string& path, const std::string& tensor, std::optional<FloatType> declared) {
  if (is_npy_path(path)) return read_npy_input(path, tensor, declared);
  if (declared) return not_read(path, "--input-dtype is for .npy inputs; a safetensors tensor names its dtype");
  auto c = CheckpointReader::open(path);
  if (!c) return input_error(c.error());
  const CheckpointReader& r = *c.value();
  const quant::TensorRef* ref = nullptr;
  if (!tensor.empty()) {
    ref = r.find(tensor);
    if (!ref) return not_read(path, "no tensor " + quote_name(tensor), Place::tensor(tensor));
  } else {
    auto loaded = r.only_tensor();
    if (!loaded) return input_error(loaded.error(), path);
    ref = loaded.value();
  }
  const TensorEntry& e = *ref->entry;
  const auto t = float_type_of(e.dtype);
  const Place at = Place::tensor(e.name);
  if (!t) return input_error(not_read_at(at, "expected dtype F32, BF16 or F16, found " + std::string(dtype_name(e.dtype))), path);
  if (e.shape.size() != 2)
    return input_error(not_read_at(at, "expected a 2-D tensor [M, K], found " + std::to_string(e.shape.size()) + " dimensions"),
                       path);
  auto b = r.bytes(*ref);
  if (!b) return input_error(b.error(), path);
  return LinearInput{*t, e.shape[0], e.shape[1], decode_floats(*t, b.value())};
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

namespace {

std::optional<std::string> dump(const std::string& dir, const std::vector<NamedTensor>& tensors) {
  std::vector<TensorView> views;
  for (const NamedTensor& t : tensors) views.push_back({t.name, t.dtype, t.shape, t.bytes});
  return dump_views(dir, views);
}

}  // namespace

CommandOutcome finish(const LinearRequest& r, const NamedTensor& y, const std::vector<NamedTensor>& intermediates) {
  if (!r.dump_dir.empty())
    if (auto e = dump(r.dump_dir, intermediates)) return usage_error(*e);
  if (auto e = write_output(r.out, y)) return usage_error(*e);
  return {kExitOk, "", ""};
}

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

}  // namespace safespec
