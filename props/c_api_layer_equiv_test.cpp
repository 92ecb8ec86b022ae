// safespec_layer_describe and safespec_dequant_layer (include/safespec/layer.h)
// against the command's path, on every marked layer of the quantized
// examples: the layer's tensors and marker text handed to the C API by
// suffix give the bits `safespec dequant` computes from the file, and the
// format, packing and logical size `inspect` reports. Every format of the
// format table must be reached by some example, so a format added without an
// example, or without a numerics row the C API can reach, fails here. Then
// the refusals: an unknown format, a marker that names another format or is
// not an object, a missing tensor (its rule id), a null suffix.
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "props/expect.hpp"
#include "safespec/safespec.h"
#include "spec/quant/logical_size.hpp"
#include "src/commands/format_numerics.hpp"
#include "src/parse/layer_io.hpp"

namespace {

using namespace safespec;
namespace fs = std::filesystem;

struct LayerTensors {
  std::vector<std::string> suffixes;
  std::vector<std::vector<std::uint8_t>> bytes;
  std::vector<safespec_named_tensor> named;
  std::string marker;
};

// P's tensors as a caller holds them: P.<suffix> but the marker, whose text
// is marker_json.
bool gather(const CheckpointReader& r, const quant::Layer& l, LayerTensors& out) {
  const std::string prefix = l.prefix + ".";
  for (std::string_view n : r.tensor_names()) {
    if (!n.starts_with(prefix)) continue;
    const quant::TensorRef* t = r.find(std::string(n));
    auto b = r.bytes(*t);
    if (!b) return false;
    const std::string suffix(n.substr(prefix.size()));
    if (suffix == "comfy_quant") {
      out.marker.assign(b.value().begin(), b.value().end());
      continue;
    }
    out.suffixes.push_back(suffix);
    out.bytes.push_back(std::move(b).value());
  }
  for (std::size_t i = 0; i < out.suffixes.size(); ++i) {
    const quant::TensorRef* t = r.find(prefix + out.suffixes[i]);
    safespec_named_tensor nt{};
    nt.suffix = out.suffixes[i].c_str();
    nt.tensor.data = out.bytes[i].data();
    nt.tensor.size_bytes = out.bytes[i].size();
    nt.tensor.dtype = static_cast<safespec_dtype>(t->entry->dtype);
    nt.tensor.rank = static_cast<std::uint32_t>(t->entry->shape.size());
    for (std::size_t d = 0; d < t->entry->shape.size() && d < SAFESPEC_MAX_RANK; ++d) nt.tensor.shape[d] = t->entry->shape[d];
    out.named.push_back(nt);
  }
  return !out.marker.empty();
}

void one_layer(const std::string& file, const CheckpointReader& r, const quant::Layer& l, std::set<std::string>& reached,
               std::set<std::string>& packings) {
  const quant::FormatSpec* spec = quant::find_format(l.format);
  LayerTensors t;
  if (!spec || l.site != quant::MarkerSite::Tensor || !gather(r, l, t)) return;
  const std::string where = file + " " + l.prefix;
  auto accepted = r.refuse_invalid(l, false);
  auto file_w = accepted ? format_numerics(spec->format).dequant(r, l, DequantOptions{})
                         : LayerResult<deq::Mat<float>>(accepted.error());

  safespec_layer_info info{};
  safespec_error err{};
  const safespec_status described =
      safespec_layer_describe(spec->name.data(), t.marker.c_str(), t.named.data(), t.named.size(), &info, &err);
  if (!accepted) {  // a rule refuses the layer: describing it is refused too
    EXPECT(described == SAFESPEC_INVALID_INPUT, where + ": the file's path refuses it: " + accepted.error().message);
    return;
  }
  EXPECT(described == SAFESPEC_OK, where + ": " + err.message);
  if (!file_w) {  // the reference refuses the values: so does the C API's dequant, with the rule
    std::vector<float> out(1);
    safespec_buffer b{out.data(), sizeof(float), SAFESPEC_DTYPE_F32};
    const safespec_status s = safespec_dequant_layer(spec->name.data(), t.marker.c_str(), t.named.data(), t.named.size(), 0, &b, &err);
    EXPECT(s == SAFESPEC_INVALID_INPUT && file_w.error().message.find(err.rule) != std::string::npos && err.rule[0],
           where + ": the file's path: " + file_w.error().message + "; the C API: " + err.rule + ": " + err.message);
    return;
  }
  if (described != SAFESPEC_OK) return;
  const deq::Mat<float>& m = file_w.value();
  const quant::LayerSize size = quant::layer_size(l, r.table(), *spec);
  const std::string packing(quant::packing_name(quant::layer_packing(*spec, l, r.table())));
  EXPECT(info.format == spec->name, where + ": format " + info.format);
  EXPECT(info.packing == packing, where + ": packing " + info.packing + ", inspect says " + packing);
  EXPECT(info.rows == m.rows && info.cols == m.cols, where + ": logical shape");
  EXPECT(size.parameters && info.parameters == *size.parameters, where + ": parameters");
  EXPECT(size.stored_bytes && info.stored_bytes == *size.stored_bytes, where + ": stored bytes");

  std::vector<float> out(m.v.size());
  safespec_buffer b{out.data(), out.size() * sizeof(float), SAFESPEC_DTYPE_F32};
  const safespec_status s = safespec_dequant_layer(spec->name.data(), t.marker.c_str(), t.named.data(), t.named.size(), 0, &b, &err);
  EXPECT(s == SAFESPEC_OK, where + ": " + err.message);
  EXPECT(std::memcmp(out.data(), m.v.data(), out.size() * sizeof(float)) == 0, where + ": the command's bits");
  reached.insert(std::string(spec->name));
  packings.insert(std::string(spec->name) + " " + packing);
}

safespec_status describe(const char* format, const char* marker, const std::vector<safespec_named_tensor>& t,
                         safespec_error& err) {
  safespec_layer_info info{};
  return safespec_layer_describe(format, marker, t.data(), t.size(), &info, &err);
}

void refusals(const fs::path& examples) {
  auto r = CheckpointReader::open((examples / "fp8_e4m3fn_valid.safetensors").string());
  EXPECT(r && !r.value()->layers().empty(), "fp8_e4m3fn_valid has a layer");
  if (!r || r.value()->layers().empty()) return;
  LayerTensors t;
  gather(*r.value(), r.value()->layers()[0], t);
  safespec_error err{};
  EXPECT(describe("float8_e4m3fn", nullptr, t.named, err) == SAFESPEC_OK, err.message);
  EXPECT(describe("float8_e4m3fn", "{}", t.named, err) == SAFESPEC_OK, err.message);
  EXPECT(describe("int9", nullptr, t.named, err) == SAFESPEC_INVALID_ARGUMENT, "unknown format");
  EXPECT(std::string(err.message).starts_with("format: expected one of float8_e4m3fn, float8_e5m2, nvfp4") &&
             std::string(err.message).ends_with("found 'int9'"),
         err.message);
  EXPECT(describe("float8_e4m3fn", R"({"format": "nvfp4"})", t.named, err) == SAFESPEC_INVALID_ARGUMENT, "other format");
  EXPECT(std::string(err.message) ==
             "marker_json: expected no \"format\" key or 'float8_e4m3fn' (the format argument), found 'nvfp4'",
         err.message);
  EXPECT(describe("float8_e4m3fn", "[1]", t.named, err) == SAFESPEC_INVALID_ARGUMENT, "not an object");
  EXPECT(std::string(err.message) == "marker_json: expected a JSON object of marker keys, found list", err.message);
  std::vector<safespec_named_tensor> weight_only;
  for (const safespec_named_tensor& n : t.named)
    if (std::string(n.suffix) == "weight") weight_only.push_back(n);
  EXPECT(describe("float8_e4m3fn", nullptr, weight_only, err) == SAFESPEC_INVALID_INPUT, "no weight_scale");
  EXPECT(std::string(err.rule).starts_with("CQ-"), std::string("rule '") + err.rule + "': " + err.message);
  std::vector<safespec_named_tensor> unnamed = t.named;
  unnamed[0].suffix = nullptr;
  EXPECT(describe("float8_e4m3fn", nullptr, unnamed, err) == SAFESPEC_INVALID_ARGUMENT, "null suffix");
  EXPECT(describe(nullptr, nullptr, t.named, err) == SAFESPEC_INVALID_ARGUMENT, "null format");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s EXAMPLES_QUANT_DIR\n", argv[0]);
    return 2;
  }
  const fs::path dir = argv[1];
  std::set<std::string> reached, packings;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".safetensors") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const fs::path& f : files) {
    auto r = CheckpointReader::open(f.string());
    if (!r) continue;
    for (const quant::Layer& l : r.value()->layers()) one_layer(f.filename().string(), *r.value(), l, reached, packings);
  }
  for (const quant::FormatSpec& f : quant::all_formats())
    EXPECT(reached.count(std::string(f.name)) == 1,
           std::string(f.name) + ": no example in " + dir.string() + " reaches the C API's dequant (add one)");
  for (const char* p : {"asym_w4a8_int8 bits6", "svdquant_w4a4 nibbles", "svdquant_w4a4 tile_packed4"})
    EXPECT(packings.count(p) == 1, std::string("no example layer of ") + p);
  refusals(dir);
  if (failures == 0)
    std::printf("c_api layers: %zu formats, %zu packings, each the command's bits and inspect's size\n", reached.size(),
                packings.size());
  return failures == 0 ? 0 : 1;
}
