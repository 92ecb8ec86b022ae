#include "src/commands/linear_paths.hpp"

#include <future>

#include "spec/numerics/int_linear.hpp"
#include "spec/numerics/svdquant.hpp"
#include "spec/quant/marker_values.hpp"
#include "spec/quote.hpp"
#include "src/commands/format_numerics.hpp"
#include "src/numerics/w4a8_fast.hpp"
#include "src/numerics/w4a8_weight_fast.hpp"

namespace safespec {

using numerics::FloatType;

CommandOutcome linear_w4a8(const LinearRequest& r, const CheckpointReader& c, const quant::Layer& l, const LinearInput& x) {
  auto layer = read_w4a8_for(c, l, DequantOptions{r.frozen_codebook});
  if (!layer) return outcome_of(layer.error());
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

namespace {

// The int8 and convrot_w4a4 traces' outputs: y, and rotated, xs, xq, acc, y
// for --dump.
CommandOutcome finish_int(const LinearRequest& r, const LinearInput& x, std::uint64_t n,
                          const Result<deq::LinearTrace>& trace) {
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

CommandOutcome wrong_k(const LinearInput& x, std::uint64_t k) {
  return usage_error("input has shape " + dims(x.m, x.k) + ", layer expects [M, " + std::to_string(k) + "]");
}

}  // namespace

// §7.1 and §6.2-§6.3 through spec/numerics/int_linear.hpp: only the eager
// activation path is modelled there, so --semantics picks the W4A4 backend
// (its linear_dtype divergence) and nothing else.
CommandOutcome linear_int8(const LinearRequest& r, const CheckpointReader& c, const quant::Layer& l, const LinearInput& x) {
  auto w = read_int8(c, l);
  if (!w) return outcome_of(w.error());
  const std::uint64_t n = w.value().q.rows, k = w.value().q.cols;
  auto b = read_bias(c, l, n);
  if (!b) return outcome_of(b.error());
  if (x.k != k) return wrong_k(x, k);
  const deq::LinearInput in{deq::Mat<float>(x.m, x.k, x.values), dtype_of(x.t), std::move(b).value(), deq::Device::Gpu};
  return finish_int(r, x, n, deq::int8_linear(in, w.value()));
}

CommandOutcome linear_w4a4(const LinearRequest& r, const CheckpointReader& c, const quant::Layer& l, const LinearInput& x) {
  auto w = read_w4a4(c, l);
  if (!w) return outcome_of(w.error());
  const std::uint64_t n = w.value().packed.rows, k = 2 * w.value().packed.cols;
  auto b = read_bias(c, l, n);
  if (!b) return outcome_of(b.error());
  if (x.k != k) return wrong_k(x, k);
  const py::Value* ld = quant::comfy_get(*l.marker, "linear_dtype");
  const auto* s = ld ? std::get_if<std::string>(&ld->data) : nullptr;
  const auto dt = s && *s == "int8" ? deq::W4a4LinearDtype::Int8 : deq::W4a4LinearDtype::Int4;
  const auto be = r.semantics == numerics::Semantics::Cuda ? deq::Backend::Cuda : deq::Backend::Eager;
  const deq::LinearInput in{deq::Mat<float>(x.m, x.k, x.values), dtype_of(x.t), std::move(b).value(), deq::Device::Gpu};
  return finish_int(r, x, n, deq::convrot_w4a4_linear(in, w.value(), dt, be));
}

// comfy-quants' reference linear (numerics §5, quant-layers.md L20): the
// fused runtime's int4 activations are not modelled, so there is one
// semantics, and the output is binary32 as the reference returns it.
CommandOutcome linear_svdquant(const LinearRequest& r, const CheckpointReader& c, const quant::Layer& l, const LinearInput& x) {
  auto w = read_svdquant(c, l);
  if (!w) return outcome_of(w.error());
  const std::uint64_t n = w.value().packed.rows, k = 2 * w.value().packed.cols;
  if (x.k != k) return wrong_k(x, k);
  auto smooth = read_svdquant_smooth(c, l, k);
  if (!smooth) return outcome_of(smooth.error());
  auto b = read_bias(c, l, n);
  if (!b) return outcome_of(b.error());
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


}  // namespace safespec
