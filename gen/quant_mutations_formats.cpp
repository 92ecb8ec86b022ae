// Mutations of each format's tensors and marker keys (§2.2, S9, S12-S19) for the catalogue
// (quant_mutations.hpp). Companions: a mutation lists another error rule only
// where its defect implies that rule's invariant is broken too, and says why
// next to it.
#include "gen/quant_mutation_tools.hpp"

namespace safespec::gen::quant::mut {

// ---- float8 (L10, S9.1, S9.2, C13) --------------------------------------

Applied weight_cast(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::Fp8E4m3);
  if (!l) return {};
  l->find("weight")->dtype = *element(Dtype::BF16, Dtype::F16, Dtype::F32, Dtype::F8_E5M2, Dtype::U8);
  return accepts("fp8 weight of " + l->prefix + " stored as " + dt(l->find("weight")->dtype));  // S9.2: no dtype check
}

Applied fp8_tensors(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::Fp8E4m3);
  if (!l) return {};
  std::erase_if(l->tensors, [&](const QTensor& t) { return t.name == l->name("weight_scale"); });
  return layer_rejects(*l, "no weight_scale", kS91, {{"sorted(missing)", "[" + repr(l->name("weight_scale")) + "]"}});
}

Applied fp8_scale(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick(c, used, [](const QLayer& x) { return x.format == Format::Fp8E4m3; });
  if (!l) return {};
  QTensor* s = l->find("input_scale");
  if (!s || *rc::gen::arbitrary<bool>()) s = l->find("weight_scale");
  s->shape = *element(Shape{2}, Shape{1, 2}, Shape{l->n, 2});
  return accepts(s->name + " with more than one element");  // sglang never looks (S9.2)
}

Applied fp8_weight(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::Fp8E4m3);
  if (!l) return {};
  l->find("weight")->shape = *element(Shape{l->n * l->k}, Shape{1, l->n, l->k});
  return accepts("non-2-D fp8 weight of " + l->prefix);
}

// ---- nvfp4 (L12, S9.5, S19, G13) ----------------------------------------

Applied nvfp4_tensors(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::Nvfp4);
  if (!l) return {};
  const int which = *inRange(0, 3);
  std::vector<std::string> missing;
  if (which != 1) missing.push_back(l->name("weight_scale"));
  if (which != 0) missing.push_back(l->name("weight_scale_2"));
  std::erase_if(l->tensors, [&](const QTensor& t) { return std::count(missing.begin(), missing.end(), t.name) > 0; });
  return layer_rejects(*l, "nvfp4 scales missing", kS91,
                       {{"sorted(missing)", safespec::quant::sorted_list_repr(missing)}});
}

Applied nvfp4_dtypes(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::Nvfp4);
  if (!l) return {};
  QTensor* w = l->find("weight");
  QTensor* s = l->find("weight_scale");
  const int which = *inRange(0, 3);
  if (which != 1) w->dtype = Dtype::I8;  // ComfyUI takes both (same bits, viewed scale)
  if (which != 0) s->dtype = Dtype::U8;
  return layer_rejects(*l, "nvfp4 I8 weight / U8 scale", kNvDtypes,
                       {{"weight_dtype", dt(w->dtype)}, {"scale_dtype", dt(s->dtype)}});
}

Applied nvfp4_global_scale(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::Nvfp4);
  if (!l) return {};
  QTensor* s2 = l->find("weight_scale_2");
  struct V {
    Dtype d;
    Shape s;
  };
  const V v = *element(V{Dtype::F32, {2}}, V{Dtype::BF16, {}}, V{Dtype::F16, {1}}, V{Dtype::F32, {1, 1}});
  s2->dtype = v.d;
  s2->shape = v.s;
  return layer_rejects(*l, "nvfp4 global scale", kNvScale2, {{"scale_2_dtype", dt(v.d)}, {"scale_2_shape", shape(v.s)}});
}

Applied nvfp4_weight_rank(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::Nvfp4);
  if (!l) return {};
  QTensor* w = l->find("weight");
  w->shape = *element(Shape{1, w->shape[0], w->shape[1]}, Shape{w->shape[0] * w->shape[1]});
  Applied a = layer_rejects(*l, "non-2-D nvfp4 weight", kNvRank, {{"weight_shape", shape(w->shape)}});
  a.companions = {RuleId::QuantNvfp4Layout};  // kitchen's layout [N16, K16/2] is 2-D too
  return a;
}

// A new packed [r, cols] nvfp4 weight with the block scale `scale`; a
// pre_quant_scale follows K.
void nvfp4_reshape(QLayer& l, std::uint64_t r, std::uint64_t cols, Shape scale) {
  l.find("weight")->shape = {r, cols};
  l.find("weight_scale")->shape = std::move(scale);
  if (QTensor* p = l.find("pre_quant_scale")) p->shape = {2 * cols};
  l.n = r;
  l.k = 2 * cols;
}

Applied nvfp4_shapes(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::Nvfp4);
  if (!l) return {};
  // kitchen's swizzled padding where it differs from sglang's (N, K/16).
  std::uint64_t r = l->n, cols = l->k / 2;
  if (*rc::gen::arbitrary<bool>()) r = 16 * *element<std::uint64_t>(1, 3, 5, 9, 10);
  else cols = 8 * *element<std::uint64_t>(1, 2, 3, 5, 6, 7);
  nvfp4_reshape(*l, r, cols, {roundup(r, 128), roundup(cols / 8, 4)});
  return layer_rejects(*l, "nvfp4 swizzled scale", kNvShapes,
                       {{"weight_shape", shape({r, cols})}, {"scale_shape", shape(l->find("weight_scale")->shape)}});
}

Applied nvfp4_layout(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::Nvfp4);
  if (!l) return {};
  // sglang's logical (N, K/16) where kitchen's padded shape differs, or rows
  // that are no N16.
  const std::uint64_t r = *element<std::uint64_t>(16, 48, 80, 144, 7, 129);
  const std::uint64_t cols = 8 * *element<std::uint64_t>(1, 2, 4, 5);
  nvfp4_reshape(*l, r, cols, {r, cols / 8});
  return accepts("nvfp4 unswizzled scale on " + l->prefix);
}

Applied nvfp4_pre_quant_scale(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::Nvfp4);
  if (!l) return {};
  std::erase_if(l->tensors, [&](const QTensor& t) { return t.name == l->name("pre_quant_scale"); });
  struct V {
    Dtype d;
    Shape s;
  };
  const V v = *element(V{Dtype::I8, {l->k}}, V{Dtype::F8_E4M3, {l->k}}, V{Dtype::F32, {l->k + 16}},
                       V{Dtype::BF16, {1, l->k}}, V{Dtype::F16, {}});
  l->tensors.push_back(QTensor{l->name("pre_quant_scale"), v.d, v.s, {}});
  return layer_rejects(*l, "bad pre_quant_scale", kNvPqs, {{"dtype", dt(v.d)}, {"shape", shape(v.s)}});
}

Applied nvfp4_full_precision(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::Nvfp4);
  if (!l) return {};
  if (*rc::gen::arbitrary<bool>()) marker_erase(l->marker, "full_precision_matrix_mult");
  else marker_set(l->marker, "full_precision_matrix_mult", *element<std::string>("false", "1", "\"true\"", "null"));
  Applied a = rejects("full_precision_matrix_mult not true on " + l->prefix, kS19Full, {{"prefix!r", repr(l->prefix)}},
                      Stage::Config, l->prefix);
  a.step = 1;
  return a;
}

// ---- mxfp8 (L13, C12, G12) ----------------------------------------------

Applied mxfp8_tensors(QCheckpoint& c, std::set<std::string>& used) {
  strip_global(c);
  QLayer* l = pick_format(c, used, Format::Mxfp8);
  if (!l) return {};
  std::erase_if(l->tensors, [&](const QTensor& t) { return t.name == l->name("weight_scale"); });
  return accepts("mxfp8 without scale on " + l->prefix);  // S9.0: marker mxfp8 is not validated
}

Applied mxfp8_dtypes(QCheckpoint& c, std::set<std::string>& used) {
  strip_global(c);
  QLayer* l = pick_format(c, used, Format::Mxfp8);
  if (!l) return {};
  l->find("weight_scale")->dtype = *element(Dtype::I8, Dtype::F8_E4M3, Dtype::BF16);
  return accepts("mxfp8 scale dtype on " + l->prefix);
}

Applied mxfp8_layout(QCheckpoint& c, std::set<std::string>& used) {
  strip_global(c);
  QLayer* l = pick_format(c, used, Format::Mxfp8);
  if (!l) return {};
  QTensor* s = l->find("weight_scale");
  s->shape = *element(Shape{s->shape[0] + 128, s->shape[1]}, Shape{s->shape[0], s->shape[1] + 4},
                      Shape{s->shape[1], s->shape[0]});
  if (s->shape == Shape{roundup(l->n, 128), roundup(l->k / 32, 4)}) s->shape[1] += 4;
  return accepts("mxfp8 scale shape on " + l->prefix);
}

// ---- int8_tensorwise (L14, S9.6, S17) ------------------------------------

Applied with_companion(const QCheckpoint& c, const QLayer& l, Applied a) {
  if (int8_companion(c, l)) a.companions.push_back(RuleId::QuantSglangCompanion);  // S9.6's flags decide it
  return a;
}

Applied int8_tensors(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::Int8);
  if (!l) return {};
  std::erase_if(l->tensors, [&](const QTensor& t) { return t.name == l->name("weight_scale"); });
  return with_companion(c, *l,
                        layer_rejects(*l, "no int8 scale", kS91, {{"sorted(missing)", "[" + repr(l->name("weight_scale")) + "]"}}));
}

Applied int8_weight_rank(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::Int8);
  if (!l) return {};
  l->find("weight_scale")->shape = {};
  QTensor* w = l->find("weight");
  w->shape = *element(Shape{1, l->n, l->k}, Shape{l->n * l->k});
  Applied a = layer_rejects(*l, "non-2-D int8 weight", kInt8Rank, {{"weight_shape", shape(w->shape)}});
  a = with_companion(c, *l, std::move(a));
  // Beside NVFP4 the new scalar scale alone already makes it no companion.
  if (has_format(c, Format::Nvfp4) && a.companions.empty()) a.companions.push_back(RuleId::QuantSglangCompanion);
  return a;
}

Applied int8_dtypes(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::Int8);
  if (!l) return {};
  QTensor* w = l->find("weight");
  QTensor* s = l->find("weight_scale");
  if (*rc::gen::arbitrary<bool>()) w->dtype = Dtype::U8;
  else s->dtype = *element(Dtype::F16, Dtype::BF16, Dtype::F64);
  return with_companion(c, *l, layer_rejects(*l, "int8 dtypes", kInt8Dtypes,
                                             {{"weight_dtype", dt(w->dtype)}, {"scale_dtype", dt(s->dtype)}}));
}

Applied int8_shapes(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::Int8);
  if (!l) return {};
  QTensor* s = l->find("weight_scale");
  s->shape = *element(Shape{l->n}, Shape{l->n, 2}, Shape{l->n + 1, 1});
  return with_companion(c, *l, layer_rejects(*l, "int8 scale shape", kInt8Shapes,
                                             {{"weight_shape", shape(l->find("weight")->shape)}, {"scale_shape", shape(s->shape)}}));
}

Applied int8_convrot(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::Int8);
  if (!l) return {};
  if (*rc::gen::arbitrary<bool>()) marker_erase(l->marker, "convrot");
  else marker_set(l->marker, "convrot", *element<std::string>("false", "1", "\"true\""));  // `is True` (S17)
  return rejects("convrot not true on " + l->prefix, kS17Convrot, {{"prefix!r", repr(l->prefix)}}, Stage::Config,
                 l->prefix);
}

Applied int8_convrot_groupsize(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::Int8);
  if (!l) return {};
  struct V {
    std::string_view json, repr;
  };
  const V v = *element(V{"", "None"}, V{"4", "4"}, V{"\"16\"", "'16'"}, V{"32", "32"});
  if (v.json.empty()) marker_erase(l->marker, "convrot_groupsize");  // S17 has no default
  else marker_set(l->marker, "convrot_groupsize", std::string(v.json));
  Applied a = rejects("convrot_groupsize " + std::string(v.repr) + " on " + l->prefix, kS17Group,
                      {{"prefix!r", repr(l->prefix)}, {"value!r", std::string(v.repr)}}, Stage::Config, l->prefix);
  a.step = 1;
  return a;
}

Applied k_int32(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::Int8);
  if (!l) return {};
  // K = 2^17 > 131071 = (2^31 - 1) // (128 * 128), divisible by every C.
  l->n = 1;
  l->k = std::uint64_t{1} << 17;
  l->find("weight")->shape = {1, l->k};
  QTensor* s = l->find("weight_scale");
  if (!s->shape.empty()) s->shape = {1, 1};
  return accepts("int8 K = 131072 on " + l->prefix);
}

// ---- convrot_w4a4 (L15, S9.4, S15) ---------------------------------------

std::string w4a4_c(const QLayer& l) {
  const std::string* c = marker_get(l.marker, "convrot_groupsize");
  return c ? *c : std::to_string(safespec::quant::marker_defaults(Format::W4a4).convrot_groupsize);
}

Applied w4a4_tensors(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::W4a4);
  if (!l) return {};
  std::erase_if(l->tensors, [&](const QTensor& t) { return t.name == l->name("weight_scale"); });
  return layer_rejects(*l, "no w4a4 scale", kS91, {{"sorted(missing)", "[" + repr(l->name("weight_scale")) + "]"}});
}

Applied w4a4_dtypes(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::W4a4);
  if (!l) return {};
  QTensor* w = l->find("weight");
  QTensor* s = l->find("weight_scale");
  if (*rc::gen::arbitrary<bool>()) w->dtype = Dtype::U8;
  else s->dtype = *element(Dtype::F16, Dtype::BF16, Dtype::F64);
  return layer_rejects(*l, "w4a4 dtypes", kW4a4Dtypes, {{"weight_dtype", dt(w->dtype)}, {"scale_dtype", dt(s->dtype)}});
}

Applied w4a4_shapes(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::W4a4);
  if (!l) return {};
  QTensor* s = l->find("weight_scale");
  s->shape = *element(Shape{l->n, 1}, Shape{l->n + 1}, Shape{});
  return layer_rejects(*l, "w4a4 scale shape", kW4a4Shapes,
                       {{"weight_shape", shape(l->find("weight")->shape)}, {"scale_shape", shape(s->shape)}});
}

Applied w4a4_groupsize(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::W4a4);
  if (!l) return {};
  marker_set(l->marker, "convrot_groupsize", "4");  // a power of 4 dividing K, not in (16, 64, 256)
  return layer_rejects(*l, "w4a4 C = 4", kW4a4Group, {{"convrot_group_size", "4"}});
}

Applied w4a4_k(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::W4a4);
  if (!l) return {};
  l->k += 32;  // K % 64 == 32
  l->find("weight")->shape = {l->n, l->k / 2};
  return layer_rejects(*l, "w4a4 K = " + std::to_string(l->k), kW4a4K,
                       {{"logical_input_size", std::to_string(l->k)}, {"convrot_group_size", w4a4_c(*l)}});
}

Applied w4a4_linear_dtype(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::W4a4);
  if (!l) return {};
  struct V {
    std::string_view json, repr;
  };
  const V v = *element(V{"\"fp8\"", "'fp8'"}, V{"\"INT4\"", "'INT4'"}, V{"8", "'8'"});  // str() first (S15.5)
  marker_set(l->marker, "linear_dtype", std::string(v.json));
  Applied a = rejects("linear_dtype " + std::string(v.json) + " on " + l->prefix, kS155,
                      {{"prefix!r", repr(l->prefix)}, {"linear_dtype!r", std::string(v.repr)}}, Stage::Config, l->prefix);
  a.step = 1;
  return a;
}

// ---- asym_w4a8_int8 (L16, S9.3, S12, S13, K1, K6, K7) ---------------------

std::uint64_t w4a8_g(const QLayer& l) {
  const std::string* g = marker_get(l.marker, "group_size");
  return g ? std::stoull(*g) : static_cast<std::uint64_t>(safespec::quant::marker_defaults(Format::W4a8).group_size);
}

// A new group size g: s_rel and the correction follow K // g.
void w4a8_regroup(QLayer& l, std::uint64_t g, std::string json) {
  marker_set(l.marker, "group_size", std::move(json));
  l.find("weight_s_rel")->shape = {l.n, l.k / g};
  if (QTensor* corr = l.find("weight_correction")) corr->shape = {l.k / g, l.n};
}

Applied w4a8_tensors(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::W4a8);
  if (!l) return {};
  const int which = *inRange(0, 3);
  std::vector<std::string> missing;
  if (which != 1) missing.push_back(l->name("weight_s_rel"));
  if (which != 0) missing.push_back(l->name("weight_s_channel"));
  std::erase_if(l->tensors, [&](const QTensor& t) { return std::count(missing.begin(), missing.end(), t.name) > 0; });
  return layer_rejects(*l, "w4a8 scales missing", kS91, {{"sorted(missing)", safespec::quant::sorted_list_repr(missing)}});
}

Applied w4a8_group_size(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::W4a8);
  if (!l) return {};
  struct V {
    std::uint64_t g;
    std::string_view json;
  };
  const V v = *element(V{1, "1"}, V{2, "2"}, V{3, "3"}, V{1, "true"});  // int(True) == 1
  w4a8_regroup(*l, v.g, std::string(v.json));
  Applied a = layer_rejects(*l, "group_size " + std::string(v.json), kA1, {{"group_size", std::to_string(v.g)}});
  a.companions = {RuleId::QuantW4a8K};  // S13.5 and K1.2 also demand G >= 4
  return a;
}

Applied w4a8_dtypes(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::W4a8);
  if (!l) return {};
  QTensor* w = l->find("weight");
  QTensor* s = l->find("weight_s_rel");
  if (*rc::gen::arbitrary<bool>()) w->dtype = Dtype::U8;
  else s->dtype = *element(Dtype::U8, Dtype::F32, Dtype::F16);
  return layer_rejects(*l, "w4a8 dtypes", kA2, {{"weight_dtype", dt(w->dtype)}, {"scale_dtype", dt(s->dtype)}});
}

Applied w4a8_channel_dtype(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::W4a8);
  if (!l) return {};
  QTensor* s = l->find("weight_s_channel");
  s->dtype = *element(Dtype::F16, Dtype::BF16, Dtype::F64);
  return layer_rejects(*l, "w4a8 channel dtype", kA3, {{"channel_dtype", dt(s->dtype)}});
}

Applied w4a8_weight_rank(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::W4a8);
  if (!l) return {};
  QTensor* w = l->find("weight");
  w->shape = *element(Shape{1, l->n, l->k / 2}, Shape{l->n * l->k / 2});
  return layer_rejects(*l, "non-2-D w4a8 weight", kA4, {{"weight_shape", shape(w->shape)}});
}

Applied w4a8_shapes(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::W4a8);
  if (!l) return {};
  QTensor* s = l->find("weight_s_rel");
  QTensor* ch = l->find("weight_s_channel");
  switch (*inRange(0, 4)) {
    case 0: ch->shape = {l->n, 1}; break;
    case 1: ch->shape = {l->n + 1}; break;
    case 2: s->shape[1] += 1; break;
    default: s->shape[0] += 1; break;
  }
  return layer_rejects(*l, "w4a8 scale shapes", kA5,
                       {{"weight_shape", shape(l->find("weight")->shape)}, {"scale_shape", shape(s->shape)},
                        {"channel_shape", shape(ch->shape)}});
}

Applied w4a8_codebook(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::W4a8);
  if (!l) return {};
  std::erase_if(l->tensors, [&](const QTensor& t) { return t.name == l->name("weight_codebook"); });
  struct V {
    Dtype d;
    Shape s;
  };
  const V v = *element(V{Dtype::F32, {17}}, V{Dtype::F16, {16}}, V{Dtype::F32, {1, 16}}, V{Dtype::BF16, {16}});
  l->tensors.push_back(QTensor{l->name("weight_codebook"), v.d, v.s, {}});
  return layer_rejects(*l, "bad codebook", kA7, {});
}

Applied w4a8_correction(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::W4a8);
  if (!l) return {};
  std::erase_if(l->tensors, [&](const QTensor& t) { return t.name == l->name("weight_correction"); });
  const std::uint64_t groups = l->k / w4a8_g(*l);
  struct V {
    Dtype d;
    Shape s;
  };
  V v = *element(V{Dtype::BF16, {groups, l->n}}, V{Dtype::F16, {groups, l->n}}, V{Dtype::F32, {l->n, groups}},
                 V{Dtype::F32, {groups, l->n + 1}});
  if (v.d == Dtype::F32 && v.s == Shape{groups, l->n}) v.s = {groups, l->n + 1};  // transposed square
  l->tensors.push_back(QTensor{l->name("weight_correction"), v.d, v.s, {}});
  return layer_rejects(*l, "bad correction", kA8, {});
}

Applied w4a8_correction_ignored(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::W4a8);
  if (!l) return {};
  if (!l->find("weight_correction"))
    l->tensors.push_back(QTensor{l->name("weight_correction"), Dtype::F32, {l->k / w4a8_g(*l), l->n}, {}});
  return accepts("F32 correction on " + l->prefix);
}

Applied w4a8_convrot(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::W4a8);
  if (!l) return {};
  if (*rc::gen::arbitrary<bool>()) marker_erase(l->marker, "convrot");  // G1: ComfyUI's writer
  else marker_set(l->marker, "convrot", *element<std::string>("false", "1", "\"true\"", "1.0"));
  return rejects("convrot not true on " + l->prefix, kS12Convrot, {{"prefix!r", repr(l->prefix)}}, Stage::Config,
                 l->prefix);
}

Applied w4a8_k(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::W4a8);
  if (!l) return {};
  // G >= 4 (A1 passes) but 16 % G != 0 and G % 16 != 0, or K % 48 != 0.
  std::uint64_t g = *element<std::uint64_t>(12, 24, 40, 48);
  if (g == 48 && l->k % 48 == 0) g = 12;
  w4a8_regroup(*l, g, std::to_string(g));
  const std::string* cs = marker_get(l->marker, "convrot_groupsize");
  const std::string conv = cs ? *cs : std::to_string(safespec::quant::marker_defaults(Format::W4a8).convrot_groupsize);
  Applied a = rejects("group_size " + std::to_string(g) + " on " + l->prefix, kS135,
                      {{"prefix!r", repr(l->prefix)}, {"layer.input_size", std::to_string(l->k)},
                       {"group_size", std::to_string(g)}, {"convrot_group_size", conv}},
                      Stage::Method, l->prefix);
  return a;
}

Applied w4a8_hadamard(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::W4a8);
  if (!l) return {};
  marker_set(l->marker, "convrot_groupsize", *element<std::string>("128", "32", "8"));  // not powers of 4, divide K
  Applied a = accepts("non-power-of-4 C on " + l->prefix);  // S13.5 tests K % C only (G5)
  a.companions = {RuleId::QuantW4a8CudaGroupsize};           // K7 needs C == 256
  return a;
}

Applied w4a8_cuda_groupsize(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::W4a8);
  if (!l) return {};
  marker_set(l->marker, "convrot_groupsize", *element<std::string>("64", "16", "4"));
  return accepts("C != 256 on " + l->prefix);
}

// ---- awq_w4a16 (L17, CL only) ---------------------------------------------

Applied awq_tensors(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::Awq);
  if (!l) return {};
  const int which = *inRange(0, 3);
  std::erase_if(l->tensors, [&](const QTensor& t) {
    return (which != 1 && t.name == l->name("weight_scale")) || (which != 0 && t.name == l->name("weight_zeros"));
  });
  return applied("awq companions missing on " + l->prefix);
}

Applied awq_shapes(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::Awq);
  if (!l) return {};
  QTensor* t = l->find(*rc::gen::arbitrary<bool>() ? "weight_scale" : "weight_zeros");
  const Shape was = t->shape;
  t->shape = *element(Shape{was[1], was[0]}, Shape{was[0] + 1, was[1]}, Shape{was[0], was[1] + 1});
  if (t->shape == was) t->shape[0] += 1;
  return applied(t->name + " reshaped");
}

}  // namespace safespec::gen::quant::mut
