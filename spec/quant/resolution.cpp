// sglang's resolve_comfy_checkpoint_quantization (S11) and the refusals of
// the configs it builds (S12.3, S19), comfy-quant-markers.md §3.5-§3.10.
#include "spec/quant/resolution.hpp"

#include <algorithm>
#include <array>

#include "spec/quant/marker_values.hpp"
#include "spec/quant/order.hpp"
#include "spec/quant/render.hpp"

namespace safespec::quant {

namespace {

using C = Consumer;
using E = Effect;

constexpr MessageTemplate kSgUnsupported{C::Sglang, E::Rejects, "NotImplementedError",
                                         "Unsupported Comfy quantization format(s): {formats}",
                                         "quantization_utils.py:416-418 (S11)"};
constexpr MessageTemplate kSgW4a8Companion{C::Sglang, E::Rejects, "ValueError",
                                           "Unsupported Comfy W4A8 format for {prefix!r}: {marker_format!r}",
                                           "kitchen_w4a8_config.py:57-60 (S12.3)"};
constexpr MessageTemplate kSgNvfp4Companion{C::Sglang, E::Rejects, "ValueError",
                                            "Unsupported Comfy NVFP4 companion for {prefix!r}: {marker_format!r}",
                                            "comfy_nvfp4.py (S19)"};

struct Resolution {
  std::array<std::string_view, 2> formats;  // a one-format list leaves the second empty
  std::string_view config;
};

// S11, in the order upstream tests the lists.
constexpr Resolution kResolutions[] = {
    {{"int8_tensorwise"}, "KitchenInt8Config"},
    {{"asym_w4a8_int8"}, "KitchenW4A8Config"},
    {{"asym_w4a8_int8", "int8_tensorwise"}, "KitchenW4A8Config"},
    {{"convrot_w4a4"}, "KitchenW4A4Config"},
    {{"convrot_w4a4", "int8_tensorwise"}, "KitchenW4A4Config"},
    {{"float8_e4m3fn"}, "ComfyFp8Config"},
    {{"nvfp4"}, "ComfyNvfp4Config"},
    {{"int8_tensorwise", "nvfp4"}, "ComfyNvfp4Config"},
    {{"mxfp8"}, "MXFP8Config"},
};

std::string format_repr(const Layer& l) {
  const py::Value* f = get(*l.marker, "format");
  return f ? py::repr(*f) : "None";
}

}  // namespace

// The private flags S9.6 sets on an int8 marker that passed its checks:
// _is_tensorwise_scalar (I8 weight, F32 scalar scale, 2-D weight) or
// _is_rowwise (I8, F32, 2-D weight, scale (N, 1)).
static bool int8_embedding_flags(const Layer& l, const TensorTable& t) {
  const TensorRef* w = t.find(tensor_name(l, "weight"));
  const TensorRef* s = t.find(tensor_name(l, "weight_scale"));
  if (!w || !s || w->entry->dtype != Dtype::I8 || s->entry->dtype != Dtype::F32) return false;
  const auto& ws = w->entry->shape;
  const auto& ss = s->entry->shape;
  if (ws.size() != 2) return false;
  return ss.empty() || (ss.size() == 2 && ss[0] == ws[0] && ss[1] == 1);
}

// is_comfy_int8_embedding (comfy_int8.py:29-35): int8, convrot falsy, one of the flags.
bool is_int8_embedding(const Layer& l, const TensorTable& t) {
  const py::Value* convrot = get(*l.marker, "convrot");
  return l.format == "int8_tensorwise" && !(convrot && truthy(*convrot)) && int8_embedding_flags(l, t);
}

bool is_rowwise_int8(const Layer& l, const TensorTable& t) {
  if (l.format != "int8_tensorwise" || !int8_embedding_flags(l, t)) return false;
  return !t.find(tensor_name(l, "weight_scale"))->entry->shape.empty();
}

std::string_view resolve_config(const std::vector<std::string>& sorted_formats) {
  if (sorted_formats.empty()) return "None";
  for (const Resolution& r : kResolutions) {
    const std::size_t n = r.formats[1].empty() ? 1 : 2;
    if (std::equal(r.formats.begin(), r.formats.begin() + n, sorted_formats.begin(), sorted_formats.end()))
      return r.config;
  }
  return "";
}

void check_resolution(const std::vector<Layer>& layers, const TensorTable& t,
                      const std::vector<std::string>& sorted_formats, Sink& out) {
  if (layers.empty()) return;
  const std::string_view config = resolve_config(sorted_formats);
  if (config.empty()) {
    std::string joined;
    for (const std::string& f : sorted_formats) joined += (joined.empty() ? "" : ", ") + f;
    out.add(layers.front().file, RuleId::QuantSglangFormats, Place::checkpoint(""),
            "expected a set of formats sglang resolves (S11), found " + py::repr(py::str_list(sorted_formats)),
            {verdict(kSgUnsupported, order::sg_resolution(), {{"formats", joined}})});
    return;
  }
  for (const Layer& l : layers) {
    if (config == "KitchenW4A8Config" && l.format != "asym_w4a8_int8" && !is_int8_embedding(l, t)) {
      out.add(l.file, RuleId::QuantSglangCompanion, Place::layer(l.prefix),
              "expected only W4A8 layers and non-ConvRot int8 embeddings beside W4A8 (S12.3), found " +
                  format_repr(l),
              {verdict(kSgW4a8Companion, order::sg_config(l.index, 0),
                       {{"prefix!r", repr(l.prefix)}, {"marker_format!r", format_repr(l)}})});
    }
    if (config == "ComfyNvfp4Config" && l.format != "nvfp4" && !is_rowwise_int8(l, t)) {
      out.add(l.file, RuleId::QuantSglangCompanion, Place::layer(l.prefix),
              "expected only NVFP4 layers and row-wise int8 layers beside NVFP4 (S19), found " + format_repr(l),
              {verdict(kSgNvfp4Companion, order::sg_config(l.index, 0),
                       {{"prefix!r", repr(l.prefix)}, {"marker_format!r", format_repr(l)}})});
    }
  }
}

}  // namespace safespec::quant
