// Valid quantized layers and checkpoints (quant_layers.hpp). Every dimension
// is drawn so the format's constraints hold by construction (no suchThat).
#include "gen/quant_layers.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "gen/models.hpp"

namespace safespec::gen::quant {

namespace {

using rc::gen::element;
using rc::gen::inRange;

std::uint64_t roundup(std::uint64_t a, std::uint64_t m) { return (a + m - 1) / m * m; }

QTensor T(const std::string& prefix, std::string_view suffix, Dtype d, std::vector<std::uint64_t> shape) {
  return QTensor{prefix + "." + std::string(suffix), d, std::move(shape), {}};
}

bool coin(int percent) { return *inRange(0, 100) < percent; }

std::string quoted(std::string_view s) { return py_json_string(s); }

constexpr std::string_view kPrefix = "p";  // generators' placeholder prefix, replaced by set_prefix

// float8_e4m3fn / float8_e5m2 (L10, L11): weight [N, K] in the format's fp8
// dtype, a one-element F32 weight_scale, optional F32 input_scale.
QLayer fp8_layer(Format f) {
  QLayer l;
  l.format = f;
  l.n = *inRange<std::uint64_t>(1, 49);
  l.k = *inRange<std::uint64_t>(1, 97);
  const std::string p(kPrefix);
  l.tensors.push_back(T(p, "weight", f == Format::Fp8E4m3 ? Dtype::F8_E4M3 : Dtype::F8_E5M2, {l.n, l.k}));
  l.tensors.push_back(T(p, "weight_scale", Dtype::F32, coin(50) ? std::vector<std::uint64_t>{} : std::vector<std::uint64_t>{1}));
  if (coin(40)) l.tensors.push_back(T(p, "input_scale", Dtype::F32, {}));
  l.marker.push_back({"format", quoted(format_name(f))});
  if (coin(30)) l.marker.push_back({"full_precision_matrix_mult", coin(50) ? "true" : "false"});
  return l;
}

// nvfp4 (L12, G13): weight [R, C] U8 with R = N16, C = K16/2; block scale
// swizzled [roundup(R, 128), roundup(C/8, 4)]. For every consumer R % 128 ==
// 0 and C % 32 == 0, where that equals sglang's (N, K/16), and the marker
// requests full_precision_matrix_mult (S19).
QLayer nvfp4_layer(Validity v) {
  QLayer l;
  l.format = Format::Nvfp4;
  const bool all = v == Validity::AllConsumers;
  const std::uint64_t r = all ? 128 * *inRange<std::uint64_t>(1, 3) : 16 * *inRange<std::uint64_t>(1, 13);
  const std::uint64_t c = all ? 32 * *inRange<std::uint64_t>(1, 4) : 8 * *inRange<std::uint64_t>(1, 9);
  l.n = r;
  l.k = 2 * c;
  const std::string p(kPrefix);
  l.tensors.push_back(T(p, "weight", all || coin(70) ? Dtype::U8 : Dtype::I8, {r, c}));
  l.tensors.push_back(T(p, "weight_scale", all || coin(70) ? Dtype::F8_E4M3 : Dtype::U8,
                        {roundup(r, 128), roundup(c / 8, 4)}));
  const Dtype s2 = all || coin(70) ? Dtype::F32 : Dtype::BF16;
  l.tensors.push_back(T(p, "weight_scale_2", s2, coin(50) ? std::vector<std::uint64_t>{} : std::vector<std::uint64_t>{1}));
  if (coin(40)) l.tensors.push_back(T(p, "input_scale", Dtype::F32, {}));
  if (coin(30)) l.tensors.push_back(T(p, "pre_quant_scale", *element(Dtype::BF16, Dtype::F16, Dtype::F32), {l.k}));
  l.marker.push_back({"format", quoted("nvfp4")});
  if (all || coin(50)) l.marker.push_back({"full_precision_matrix_mult", "true"});
  return l;
}

// mxfp8 (L13, G12): weight [N32, K32] F8_E4M3, U8 E8M0 scales swizzled
// [roundup(N32, 128), roundup(K32/32, 4)]. sglang validates nothing per layer
// for a marker-declared mxfp8 (S9.0), so both levels share the layout; half
// the layers are aligned (R % 128 == 0, C % 128 == 0) so a checkpoint can
// also carry quant_format mxfp8 (S7).
QLayer mxfp8_layer() {
  QLayer l;
  l.format = Format::Mxfp8;
  const bool aligned = coin(50);
  l.n = aligned ? 128 * *inRange<std::uint64_t>(1, 3) : 32 * *inRange<std::uint64_t>(1, 7);
  l.k = aligned ? 128 * *inRange<std::uint64_t>(1, 3) : 32 * *inRange<std::uint64_t>(1, 7);
  const std::string p(kPrefix);
  l.tensors.push_back(T(p, "weight", Dtype::F8_E4M3, {l.n, l.k}));
  l.tensors.push_back(T(p, "weight_scale", Dtype::U8, {roundup(l.n, 128), roundup(l.k / 32, 4)}));
  if (coin(30)) l.tensors.push_back(T(p, "input_scale", Dtype::F32, {}));
  l.marker.push_back({"format", quoted("mxfp8")});
  return l;
}

// int8_tensorwise (L14, S9.6, S17, G16). Convrot: KitchenInt8Config's
// convrot true and an explicit C in (16, 64, 256) dividing K. Embedding /
// Rowwise: the non-ConvRot companions KitchenW4A8Config and ComfyNvfp4Config
// accept (S12.3, S19). Plain: ComfyUI only, an int8-only file without ConvRot
// or with ConvRot's default C (G16).
QLayer int8_layer(Int8Role role) {
  QLayer l;
  l.format = Format::Int8;
  l.n = *inRange<std::uint64_t>(1, 33);
  const auto c_default = static_cast<std::uint64_t>(safespec::quant::marker_defaults(Format::Int8).convrot_groupsize);
  std::uint64_t c = c_default;
  const bool convrot = role == Int8Role::Convrot || (role == Int8Role::Plain && coin(50));
  if (convrot) {
    c = *element<std::uint64_t>(16, 64, 256);
    if (role == Int8Role::Plain) c = c_default;
    l.k = c * *inRange<std::uint64_t>(1, c == 256 ? 3 : 5);
  } else {
    l.k = 16 * *inRange<std::uint64_t>(1, 7);
  }
  const std::string p(kPrefix);
  l.tensors.push_back(T(p, "weight", Dtype::I8, {l.n, l.k}));
  const bool scalar = role != Int8Role::Rowwise && coin(50);
  l.tensors.push_back(T(p, "weight_scale", Dtype::F32, scalar ? std::vector<std::uint64_t>{} : std::vector<std::uint64_t>{l.n, 1}));
  l.marker.push_back({"format", quoted("int8_tensorwise")});
  if (convrot) {
    l.marker.push_back({"convrot", "true"});
    if (role == Int8Role::Convrot) l.marker.push_back({"convrot_groupsize", json_int(static_cast<std::int64_t>(c))});
  } else if (coin(40)) {
    l.marker.push_back({"convrot", "false"});
  }
  return l;
}

// convrot_w4a4 (L15, S9.4, S15): weight I8 [N, K/2], scale F32 [N], C in
// (16, 64, 256), K a multiple of 64 and of C.
QLayer w4a4_layer() {
  QLayer l;
  l.format = Format::W4a4;
  const std::uint64_t c = *element<std::uint64_t>(16, 64, 256);
  l.n = *inRange<std::uint64_t>(1, 33);
  l.k = std::max<std::uint64_t>(64, c) * *inRange<std::uint64_t>(1, 4);
  const std::string p(kPrefix);
  l.tensors.push_back(T(p, "weight", Dtype::I8, {l.n, l.k / 2}));
  l.tensors.push_back(T(p, "weight_scale", Dtype::F32, {l.n}));
  l.marker.push_back({"format", quoted("convrot_w4a4")});
  const std::int64_t c_default = safespec::quant::marker_defaults(Format::W4a4).convrot_groupsize;
  if (static_cast<std::int64_t>(c) != c_default || coin(50))
    l.marker.push_back({"convrot_groupsize", json_int(static_cast<std::int64_t>(c))});
  if (coin(40)) l.marker.push_back({"linear_dtype", quoted(coin(50) ? "int4" : "int8")});
  return l;
}

// asym_w4a8_int8 (L16, S9.3, S12, S13, K1, K7): K a multiple of 256 (C = 256
// for kitchen's CUDA kernel), G in {4, 8} or a multiple of 16 dividing K.
// All consumers: "convrot": true (G1), F8_E4M3 s_rel, F32 correction.
// ComfyUI only: no convrot key, U8/F32 s_rel (G2), BF16/F16 correction (G3).
QLayer w4a8_layer(Validity v) {
  QLayer l;
  l.format = Format::W4a8;
  const bool all = v == Validity::AllConsumers;
  l.k = 256 * *inRange<std::uint64_t>(1, 4);
  std::uint64_t g = *element<std::uint64_t>(4, 8, 16, 16, 32, 64, 128, 256);
  if (l.k == 768 && coin(20)) g = 48;
  l.n = *inRange<std::uint64_t>(1, 25);
  const std::string p(kPrefix);
  l.tensors.push_back(T(p, "weight", Dtype::I8, {l.n, l.k / 2}));
  const Dtype s_rel = all || coin(50) ? Dtype::F8_E4M3 : *element(Dtype::U8, Dtype::F32);
  l.tensors.push_back(T(p, "weight_s_rel", s_rel, {l.n, l.k / g}));
  l.tensors.push_back(T(p, "weight_s_channel", Dtype::F32, {l.n}));
  if (coin(40)) l.tensors.push_back(T(p, "weight_codebook", Dtype::F32, {16}));
  if (coin(30)) {
    const Dtype corr = all || coin(50) ? Dtype::F32 : *element(Dtype::BF16, Dtype::F16);
    l.tensors.push_back(T(p, "weight_correction", corr, {l.k / g, l.n}));
  }
  l.marker.push_back({"format", quoted("asym_w4a8_int8")});
  const std::int64_t g_default = safespec::quant::marker_defaults(Format::W4a8).group_size;
  if (static_cast<std::int64_t>(g) != g_default || coin(50))
    l.marker.push_back({"group_size", json_int(static_cast<std::int64_t>(g))});
  if (coin(50)) l.marker.push_back({"convrot_groupsize", "256"});
  if (all || coin(30)) l.marker.push_back({"convrot", "true"});
  return l;
}

// awq_w4a16 (L17, CL only): weight I8 [N, K/2], scale and zeros [K/G, N].
QLayer awq_layer() {
  QLayer l;
  l.format = Format::Awq;
  const std::uint64_t g = *element<std::uint64_t>(32, 64, 128);
  l.n = *inRange<std::uint64_t>(1, 33);
  l.k = g * *inRange<std::uint64_t>(1, 5);
  const std::string p(kPrefix);
  l.tensors.push_back(T(p, "weight", Dtype::I8, {l.n, l.k / 2}));
  const Dtype d = *element(Dtype::F16, Dtype::BF16, Dtype::F32);
  l.tensors.push_back(T(p, "weight_scale", d, {l.k / g, l.n}));
  l.tensors.push_back(T(p, "weight_zeros", d, {l.k / g, l.n}));
  l.marker.push_back({"format", quoted("awq_w4a16")});
  if (g != 64 || coin(50)) l.marker.push_back({"group_size", json_int(static_cast<std::int64_t>(g))});
  return l;
}

// svdquant_w4a4 (L20), comfy-quants' names: natural, or tile-packed under
// "layout": "kitchen_tile_packed_w4a4" (N a multiple of 128, K of 64).
QLayer svdquant_layer() {
  QLayer l;
  l.format = Format::Svdquant;
  const bool tiled = *rc::gen::arbitrary<bool>();
  const std::uint64_t rank = *inRange<std::uint64_t>(1, 9);
  l.n = tiled ? 128 * *inRange<std::uint64_t>(1, 3) : *inRange<std::uint64_t>(1, 33);
  l.k = 64 * *inRange<std::uint64_t>(1, 4);
  const std::string p(kPrefix);
  const Dtype side = *element(Dtype::BF16, Dtype::F16, Dtype::F32);
  const Dtype scale = tiled ? *element(Dtype::BF16, Dtype::F16) : side;
  if (tiled) {
    l.tensors.push_back(T(p, "weight", Dtype::I8, {l.n / 128, l.k / 64, 32, 128}));
    l.tensors.push_back(T(p, "weight_scale", scale, {l.n / 128, l.k / 64, 128}));
  } else {
    l.tensors.push_back(T(p, "weight", Dtype::I8, {l.n, l.k / 2}));
    l.tensors.push_back(T(p, "weight_scale", scale, {l.k / 64, l.n}));
  }
  l.tensors.push_back(T(p, "smooth_factor", side, {l.k}));
  l.tensors.push_back(T(p, "proj_down", side, {l.k, rank}));
  l.tensors.push_back(T(p, "proj_up", side, tiled ? std::vector<std::uint64_t>{l.n / 128, rank, 128} : std::vector<std::uint64_t>{l.n, rank}));
  if (coin(30)) l.tensors.push_back(T(p, "bias", side, {l.n}));
  l.marker.push_back({"format", quoted("svdquant_w4a4")});
  if (tiled) l.marker.push_back({"layout", quoted("kitchen_tile_packed_w4a4")});
  if (coin(30)) l.marker.push_back({"act_unsigned", "true"});
  if (coin(30)) l.marker.push_back({"lowrank_branch_input_basis", quoted(*element<std::string>("raw", "post_smoothing"))});
  if (coin(30)) l.marker.push_back({"proj_down_smooth_folded", *element<std::string>("true", "false")});
  return l;
}

void set_prefix(QLayer& l, const std::string& prefix) {
  for (QTensor& t : l.tensors) t.name = prefix + t.name.substr(l.prefix.size());
  l.prefix = prefix;
}

// The format sets of S11's table, with the int8 role each set needs.
struct FormatSet {
  std::vector<Format> formats;
  Int8Role int8_role;
};

const std::vector<FormatSet>& resolvable_sets() {
  static const std::vector<FormatSet> sets{
      {{Format::Int8}, Int8Role::Convrot},
      {{Format::W4a8}, Int8Role::Embedding},
      {{Format::W4a8, Format::Int8}, Int8Role::Embedding},
      {{Format::W4a4}, Int8Role::Convrot},
      {{Format::W4a4, Format::Int8}, Int8Role::Convrot},
      {{Format::Fp8E4m3}, Int8Role::Convrot},
      {{Format::Nvfp4}, Int8Role::Rowwise},
      {{Format::Nvfp4, Format::Int8}, Int8Role::Rowwise},
      {{Format::Mxfp8}, Int8Role::Convrot},
  };
  return sets;
}

// Layers of the given formats (each at least once), prefixes, files, sites.
QCheckpoint assemble(const std::vector<Format>& formats, Validity v, Int8Role role, bool mixed_roles) {
  QCheckpoint c;
  c.validity = v;
  const std::size_t count = std::max<std::size_t>(formats.size(), *inRange<std::size_t>(1, 5));
  const std::size_t nfiles = coin(30) ? 2 : 1;
  std::set<std::string> used;
  for (std::size_t i = 0; i < count; ++i) {
    const Format f = i < formats.size() ? formats[i] : *rc::gen::elementOf(formats);
    const Int8Role r = mixed_roles ? *element(Int8Role::Convrot, Int8Role::Plain, Int8Role::Embedding) : role;
    QLayer l = *layer(f, v, r);
    std::string prefix = *layer_prefix(i);
    while (used.count(prefix)) prefix += "_";
    used.insert(prefix);
    set_prefix(l, prefix);
    l.file = *inRange<std::size_t>(0, nfiles);
    l.site = coin(50) ? Site::Tensor : Site::Metadata;
    c.layers.push_back(std::move(l));
  }
  // A file that drew no layer is dropped: everything goes to one file.
  std::set<std::size_t> seen;
  for (const QLayer& l : c.layers) seen.insert(l.file);
  const std::size_t files = seen.size() == nfiles ? nfiles : 1;
  if (files == 1)
    for (QLayer& l : c.layers) l.file = 0;
  for (std::size_t f = 0; f < files; ++f)
    c.files.push_back(QFile{files == 1 ? "model.safetensors" : "model-0000" + std::to_string(f + 1) + "-of-00002.safetensors",
                            {}, {}, std::nullopt, {}});
  return c;
}

// S7's global case: quant_format mxfp8 when every layer is an aligned mxfp8
// layer (the shapes where sglang's (N, K/32) is kitchen's swizzled shape).
void maybe_global_mxfp8(QCheckpoint& c) {
  for (const QLayer& l : c.layers)
    if (l.format != Format::Mxfp8 || l.n % 128 != 0 || l.k % 128 != 0) return;
  if (coin(50)) c.files[0].metadata.emplace_back("quant_format", coin(50) ? "mxfp8" : "MXFP8");
}

rc::Gen<QCheckpoint> valid_from(std::vector<FormatSet> sets) {
  return rc::gen::exec([sets] {
    const FormatSet& s = *rc::gen::elementOf(sets);
    QCheckpoint c = assemble(s.formats, Validity::AllConsumers, s.int8_role, false);
    maybe_global_mxfp8(c);
    return c;
  });
}

}  // namespace

void to_w6a8(QLayer& l, std::uint64_t g, bool codebook) {
  l.find("weight")->shape = {l.n, l.k * 3 / 4};
  l.find("weight_s_rel")->shape = {l.n, l.k / g};
  std::erase_if(l.tensors, [&](const QTensor& t) {
    return t.name == l.name("weight_codebook") || t.name == l.name("weight_correction");
  });
  if (codebook) l.tensors.push_back(T(l.prefix, "weight_codebook", Dtype::F32, {16}));
  std::erase_if(l.marker, [](const MarkerEntry& e) { return e.key == "group_size"; });
  l.marker.push_back({"group_size", json_int(static_cast<std::int64_t>(g))});
}

QTensor* QLayer::find(std::string_view suffix) {
  const std::string n = name(suffix);
  for (QTensor& t : tensors)
    if (t.name == n) return &t;
  return nullptr;
}

const QTensor* QLayer::find(std::string_view suffix) const { return const_cast<QLayer*>(this)->find(suffix); }

QLayer* QCheckpoint::find_layer(std::string_view prefix) {
  for (QLayer& l : layers)
    if (l.prefix == prefix) return &l;
  return nullptr;
}

rc::Gen<std::string> layer_prefix(std::size_t i) {
  return rc::gen::exec([i] {
    const std::string n = std::to_string(i);
    if (coin(15))
      return *element<std::string>("blk'" + n, "q\"x\\" + n + ".proj", "caf\xc3\xa9." + n, "\xe6\x97\xa5\xe6\x9c\xac." + n,
                                   "emoji\xf0\x9f\x98\x80." + n);
    const std::string part = *element<std::string>("attn.to_q", "attn.to_k", "ff.net.0.proj", "proj_out", "mlp.fc1");
    return *element<std::string>("model.diffusion_model.blocks.", "transformer_blocks.", "blocks.") + n + "." + part;
  });
}

rc::Gen<QLayer> layer(Format f, Validity v, Int8Role role) {
  return rc::gen::exec([f, v, role] {
    QLayer l;
    switch (f) {
      case Format::Fp8E4m3:
      case Format::Fp8E5m2: l = fp8_layer(f); break;
      case Format::Nvfp4: l = nvfp4_layer(v); break;
      case Format::Mxfp8: l = mxfp8_layer(); break;
      case Format::Int8: l = int8_layer(role); break;
      case Format::W4a4: l = w4a4_layer(); break;
      case Format::W4a8: l = w4a8_layer(v); break;
      case Format::Awq: l = awq_layer(); break;
      case Format::Svdquant: l = svdquant_layer(); break;
    }
    l.prefix = std::string(kPrefix);
    return l;
  });
}

rc::Gen<QCheckpoint> valid_checkpoint() { return valid_from(resolvable_sets()); }

rc::Gen<QCheckpoint> valid_checkpoint_with(Format f) {
  std::vector<FormatSet> sets;
  for (const FormatSet& s : resolvable_sets())
    if (std::find(s.formats.begin(), s.formats.end(), f) != s.formats.end()) sets.push_back(s);
  if (sets.empty()) throw std::logic_error("sglang resolves no set with " + std::string(format_name(f)));
  return valid_from(std::move(sets));
}

rc::Gen<QCheckpoint> valid_checkpoint_of(std::vector<Format> formats) {
  std::sort(formats.begin(), formats.end());
  for (const FormatSet& s : resolvable_sets()) {
    std::vector<Format> have = s.formats;
    std::sort(have.begin(), have.end());
    if (have == formats) return valid_from({s});
  }
  throw std::logic_error("not a format set sglang resolves");
}

namespace {

// The formats ComfyUI registers, from the format table's column.
std::vector<Format> comfyui_formats() {
  std::vector<Format> out;
  for (const safespec::quant::FormatSpec& f : safespec::quant::all_formats())
    if (f.comfyui_registers) out.push_back(f.format);
  return out;
}

}  // namespace

rc::Gen<QCheckpoint> comfy_checkpoint_with(Format f) {
  return rc::gen::exec([f] {
    const std::vector<Format> all = comfyui_formats();
    std::vector<Format> formats{f};
    const std::size_t more = *inRange<std::size_t>(0, 3);
    for (std::size_t i = 0; i < more; ++i) formats.push_back(*rc::gen::elementOf(all));
    return assemble(formats, Validity::ComfyOnly, Int8Role::Plain, true);
  });
}

rc::Gen<QCheckpoint> producer_checkpoint_with(Format f) {
  return rc::gen::exec([f] { return assemble({f}, Validity::ComfyOnly, Int8Role::Plain, false); });
}

rc::Gen<QCheckpoint> comfy_checkpoint() {
  return rc::gen::exec([] {
    const Format f = *rc::gen::elementOf(comfyui_formats());
    return *comfy_checkpoint_with(f);
  });
}

void showValue(const QCheckpoint& c, std::ostream& os) {
  os << (c.validity == Validity::AllConsumers ? "all consumers" : "ComfyUI only") << ", " << c.files.size()
     << " file(s)\n";
  for (std::size_t f = 0; f < c.files.size(); ++f) {
    os << "  file " << f << " " << c.files[f].name;
    for (const auto& [k, v] : c.files[f].metadata) os << " [" << k << "=" << v << "]";
    if (auto q = qmeta_text(c, f)) os << "\n    _quantization_metadata: " << escaped_text(*q);
    for (const QTensor& t : c.files[f].extra) os << "\n    extra " << escaped_text(t.name) << " " << dtype_name(t.dtype);
    os << "\n";
  }
  for (const QLayer& l : c.layers) {
    os << "  layer " << escaped_text(l.prefix) << " (file " << l.file << ", "
       << (l.site == Site::Tensor ? "tensor" : "metadata") << "): " << escaped_text(marker_text(l)) << "\n";
    for (const QTensor& t : l.tensors) {
      os << "    " << escaped_text(t.name) << " " << dtype_name(t.dtype) << " [";
      for (std::size_t i = 0; i < t.shape.size(); ++i) os << (i ? ", " : "") << t.shape[i];
      os << "]\n";
    }
  }
}

}  // namespace safespec::gen::quant
