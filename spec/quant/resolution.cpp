// sglang's resolve_comfy_checkpoint_quantization (S11) and the refusals of
// the configs it builds (S12.3, S19), comfy-quant-markers.md §3.5-§3.10.
#include "spec/quant/resolution.hpp"

#include <algorithm>

#include "spec/quant/marker_values.hpp"
#include "spec/quant/order.hpp"
#include "spec/quant/render.hpp"
#include "spec/quant/sglang_versions.hpp"

namespace safespec::quant {

namespace {

using C = Consumer;
using E = Effect;


// A pair sglang resolves (S11): a format of the table with an int8 companion;
// a one-format checkpoint resolves to its row's sglang_config. Sorted by name,
// as sglang sorts the set.
struct Pair {
  QuantFormat formats[2];
  QuantFormat config_of;  // whose sglang_config the pair gets
};

constexpr Pair kPairs[] = {
    {{QuantFormat::W4a8, QuantFormat::Int8}, QuantFormat::W4a8},
    {{QuantFormat::W4a4, QuantFormat::Int8}, QuantFormat::W4a4},
    {{QuantFormat::Int8, QuantFormat::Nvfp4}, QuantFormat::Nvfp4},
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
  return l.is(QuantFormat::Int8) && !(convrot && truthy(*convrot)) && int8_embedding_flags(l, t);
}

bool is_tensorwise_scalar_int8(const Layer& l, const TensorTable& t) {
  if (!l.is(QuantFormat::Int8) || !int8_embedding_flags(l, t)) return false;
  return t.find(tensor_name(l, "weight_scale"))->entry->shape.empty();
}

bool w4a8_passes(W4a8Passes p, const Layer& l, const TensorTable& t) {
  switch (p) {
    case W4a8Passes::Int8Embeddings: return is_int8_embedding(l, t);
    case W4a8Passes::TensorwiseScalarInt8: return is_tensorwise_scalar_int8(l, t);
    case W4a8Passes::Nothing: break;
  }
  return false;
}

bool is_rowwise_int8(const Layer& l, const TensorTable& t) {
  if (!l.is(QuantFormat::Int8) || !int8_embedding_flags(l, t)) return false;
  return !t.find(tensor_name(l, "weight_scale"))->entry->shape.empty();
}

std::string_view resolve_config(const std::vector<std::string>& sorted_formats) {
  if (sorted_formats.empty()) return "None";
  if (sorted_formats.size() == 1) {
    const FormatSpec* f = find_format(sorted_formats[0]);
    return f ? f->sglang_config : "";
  }
  if (sorted_formats.size() != 2) return "";
  for (const Pair& p : kPairs)
    if (sorted_formats[0] == format_name(p.formats[0]) && sorted_formats[1] == format_name(p.formats[1]))
      return format_spec(p.config_of).sglang_config;
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
            {verdict(Msg::ResolutionSgUnsupported, At{}, {{"formats", joined}})});
    return;
  }
  for (const Layer& l : layers) {
    if (config == format_spec(QuantFormat::W4a8).sglang_config && !l.is(QuantFormat::W4a8)) {
      // Which markers the constructor lets through depends on the version.
      bool none = false;
      const VersionMask rejecting =
          sglang_versions_where([&](const SglangConfigSet& s) { return !w4a8_passes(s.w4a8_passes, l, t); }, none);
      if (!none) {
        Verdict v = verdict(Msg::ResolutionSgW4a8Companion, At{l.index},
                            {{"prefix!r", repr(l.prefix)}, {"marker_format!r", format_repr(l)}});
        v.versions = rejecting;
        out.add(l.file, RuleId::QuantSglangCompanion, Place::layer(l.prefix),
                "expected only W4A8 layers and non-ConvRot int8 embeddings beside W4A8 (S12.3), found " +
                    format_repr(l),
                {std::move(v)});
      }
    }
    if (config == format_spec(QuantFormat::Nvfp4).sglang_config && !l.is(QuantFormat::Nvfp4) && !is_rowwise_int8(l, t)) {
      out.add(l.file, RuleId::QuantSglangCompanion, Place::layer(l.prefix),
              "expected only NVFP4 layers and row-wise int8 layers beside NVFP4 (S19), found " + format_repr(l),
              {verdict(Msg::ResolutionSgNvfp4Companion, At{l.index}, {{"prefix!r", repr(l.prefix)}, {"marker_format!r", format_repr(l)}})});
    }
  }
}

}  // namespace safespec::quant
