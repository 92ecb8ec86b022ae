// Structure-aware: FuzzedDataProvider turns the bytes into a model description
// (up to 32 tensors of every dtype, scalars and zero-sized shapes, layers
// "blk.K.*" with comfy_quant marker tensors and/or _quantization_metadata,
// other metadata), which is written, read back and checked: same model, and
// the same verdict from the model as from the bytes under every profile
// (src/oracles/oracles_roundtrip.hpp, model_roundtrip_fails). Only the step from
// bytes to description is here.
// Rare faults go with high probabilities: an exhausted provider returns 0,
// which must choose the common, valid case.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdio>
#include <cstdlib>
#include <set>

#include "spec/format_rules.hpp"
#include "src/oracles/oracles_roundtrip.hpp"

namespace {

using namespace safespec;

constexpr const char* kFormats[] = {"float8_e4m3fn",   "float8_e5m2",  "nvfp4",          "mxfp8",     "int8_tensorwise",
                                    "convrot_w4a4",    "asym_w4a8_int8", "awq_w4a16",    "int8_blockwise"};
constexpr const char* kRoles[] = {"weight", "weight_scale", "input_scale", "weight_scale_2", "comfy_quant", "bias"};

// Any text, mostly made UTF-8 (bytes >= 0x80 become U+0080-U+00FF; control
// characters, quotes and backslashes stay, for the writer's escaping), now and
// then left as raw bytes so the writer's F5 refusal is exercised too.
std::string text(FuzzedDataProvider& fdp, std::size_t max) {
  const std::string raw = fdp.ConsumeRandomLengthString(max);
  if (fdp.ConsumeProbability<float>() > 0.95f) return raw;
  std::string out;
  for (unsigned char c : raw) {
    if (c < 0x80) out += static_cast<char>(c);
    else out += static_cast<char>(0xC0 | (c >> 6)), out += static_cast<char>(0x80 | (c & 0x3F));
  }
  return out;
}

std::string layer(FuzzedDataProvider& fdp) { return "blk." + std::to_string(fdp.ConsumeIntegralInRange(0, 3)); }

// A marker as json.dumps writes it (comfy-quant-markers.md §1.1), or any text.
std::string marker(FuzzedDataProvider& fdp) {
  if (fdp.ConsumeProbability<float>() > 0.8f) return text(fdp, 64);
  std::string m = std::string("{\"format\": \"") + fdp.PickValueInArray(kFormats) + "\"";
  if (fdp.ConsumeBool()) m += ", \"group_size\": " + std::to_string(fdp.ConsumeIntegralInRange(0, 256));
  return m + "}";
}

OwnedTensor tensor(FuzzedDataProvider& fdp) {
  OwnedTensor t;
  t.name = fdp.ConsumeProbability<float>() > 0.7f ? text(fdp, 24) : layer(fdp) + "." + fdp.PickValueInArray(kRoles);
  if (std::string_view(t.name).ends_with(".comfy_quant") && fdp.ConsumeProbability<float>() < 0.9f) {
    const std::string m = marker(fdp);
    t.shape = {m.size()};
    t.data.assign(m.begin(), m.end());
    return t;
  }
  t.dtype = static_cast<Dtype>(fdp.ConsumeIntegralInRange<unsigned>(0, kDtypeCount - 1));
  for (int rank = fdp.ConsumeIntegralInRange(0, 4); rank > 0; --rank)  // rank 0: a scalar
    t.shape.push_back(fdp.ConsumeProbability<float>() > 0.995f ? fdp.ConsumeIntegral<std::uint64_t>()  // F9, F10
                                                               : fdp.ConsumeIntegralInRange<std::uint64_t>(0, 6));
  // Mostly writable: sub-byte elements filling whole bytes (F11), at most 4 KiB.
  const TensorEntry probe{t.name, t.dtype, t.shape, 0, 0};
  if (rule_misaligned_bits(probe) && fdp.ConsumeProbability<float>() < 0.95f) t.shape.push_back(4);
  auto bytes = tensor_byte_size(t.shape, t.dtype);
  if (bytes && *bytes > 4096) t.shape.back() = 0, bytes = 0;
  std::size_t n = bytes ? *bytes : 0;
  if (fdp.ConsumeProbability<float>() > 0.995f) ++n;  // W3: data of the wrong size
  t.data = fdp.ConsumeBytes<std::uint8_t>(n);
  t.data.resize(n);
  return t;
}

Metadata metadata(FuzzedDataProvider& fdp) {
  Metadata out;
  for (int n = fdp.ConsumeIntegralInRange(0, 4); n > 0; --n) switch (fdp.ConsumeIntegralInRange(0, 2)) {
      case 0: out.emplace_back("format", fdp.PickValueInArray({"pt", "tf", "np"})); break;
      case 1: {  // _quantization_metadata (§1.2): a layers object of markers
        std::string q = "{\"format_version\": \"1.0\", \"layers\": {";
        for (int l = fdp.ConsumeIntegralInRange(0, 3); l > 0; --l)
          q += "\"" + layer(fdp) + "\": " + marker(fdp) + (l > 1 ? ", " : "");
        out.emplace_back("_quantization_metadata", q + "}}");
        break;
      }
      default: out.emplace_back(text(fdp, 16), text(fdp, 32));
    }
  // A repeated key mostly just drops the entry, as for tensor names.
  Metadata unique;
  std::set<std::string> keys;
  for (auto& kv : out)
    if (keys.insert(kv.first).second || fdp.ConsumeProbability<float>() > 0.95f) unique.push_back(std::move(kv));
  return unique;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static HeaderParser parser;
  FuzzedDataProvider fdp(data, size);
  ModelDescription d;
  std::set<std::string> names;
  for (int n = fdp.ConsumeIntegralInRange(0, 32); n > 0 && fdp.remaining_bytes() > 0; --n) {
    OwnedTensor t = tensor(fdp);
    // A repeated name mostly just drops the tensor, so most models are writable.
    if (names.insert(t.name).second || fdp.ConsumeProbability<float>() > 0.99f) d.tensors.push_back(std::move(t));
  }
  if (fdp.ConsumeBool()) d.metadata = metadata(fdp);
  if (auto why = model_roundtrip_fails(d, parser)) {
    std::fprintf(stderr, "roundtrip_fuzzer: %s\n", why->c_str());
    std::abort();
  }
  return 0;
}
