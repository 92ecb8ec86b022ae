// Structure-aware: FuzzedDataProvider turns the bytes into a model description
// (up to 32 tensors of every dtype, scalars and zero-sized shapes, layers
// "blk.K.*" with comfy_quant marker tensors and/or _quantization_metadata,
// other metadata), which is written, read back and checked: same model, and
// the same verdict from the model as from the bytes under every profile
// (src/oracles_roundtrip.hpp, model_roundtrip_fails). Only the step from
// bytes to description is here.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdio>
#include <cstdlib>
#include <set>

#include "spec/format_rules.hpp"
#include "src/oracles_roundtrip.hpp"

namespace {

using namespace safespec;

constexpr const char* kFormats[] = {"float8_e4m3fn",   "float8_e5m2",  "nvfp4",          "mxfp8",     "int8_tensorwise",
                                    "convrot_w4a4",    "asym_w4a8_int8", "awq_w4a16",    "int8_blockwise"};
constexpr const char* kRoles[] = {"weight", "weight_scale", "input_scale", "weight_scale_2", "comfy_quant", "bias"};

std::string layer(FuzzedDataProvider& fdp) { return "blk." + std::to_string(fdp.ConsumeIntegralInRange(0, 3)); }

// A marker as json.dumps writes it (comfy-quant-markers.md §1.1), or any text.
std::string marker(FuzzedDataProvider& fdp) {
  if (fdp.ConsumeProbability<float>() < 0.2f) return fdp.ConsumeRandomLengthString(64);
  std::string m = std::string("{\"format\": \"") + fdp.PickValueInArray(kFormats) + "\"";
  if (fdp.ConsumeBool()) m += ", \"group_size\": " + std::to_string(fdp.ConsumeIntegralInRange(0, 256));
  return m + "}";
}

OwnedTensor tensor(FuzzedDataProvider& fdp) {
  OwnedTensor t;
  t.name = fdp.ConsumeBool() ? fdp.ConsumeRandomLengthString(24) : layer(fdp) + "." + fdp.PickValueInArray(kRoles);
  if (std::string_view(t.name).ends_with(".comfy_quant") && fdp.ConsumeProbability<float>() < 0.9f) {
    const std::string m = marker(fdp);
    t.shape = {m.size()};
    t.data.assign(m.begin(), m.end());
    return t;
  }
  t.dtype = static_cast<Dtype>(fdp.ConsumeIntegralInRange<unsigned>(0, kDtypeCount - 1));
  for (int rank = fdp.ConsumeIntegralInRange(0, 4); rank > 0; --rank)  // rank 0: a scalar
    t.shape.push_back(fdp.ConsumeProbability<float>() < 0.02f ? fdp.ConsumeIntegral<std::uint64_t>()
                                                              : fdp.ConsumeIntegralInRange<std::uint64_t>(0, 6));
  const auto bytes = tensor_byte_size(t.shape, t.dtype);
  std::size_t n = bytes && *bytes <= 4096 ? *bytes : 0;
  if (fdp.ConsumeProbability<float>() < 0.02f) ++n;  // W3: data of the wrong size
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
      default: out.emplace_back(fdp.ConsumeRandomLengthString(16), fdp.ConsumeRandomLengthString(32));
    }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static FastHeaderParser parser;
  FuzzedDataProvider fdp(data, size);
  ModelDescription d;
  std::set<std::string> names;
  for (int n = fdp.ConsumeIntegralInRange(0, 32); n > 0 && fdp.remaining_bytes() > 0; --n) {
    OwnedTensor t = tensor(fdp);
    // A repeated name mostly just drops the tensor, so most models are writable.
    if (names.insert(t.name).second || fdp.ConsumeProbability<float>() < 0.05f) d.tensors.push_back(std::move(t));
  }
  if (fdp.ConsumeBool()) d.metadata = metadata(fdp);
  if (auto why = model_roundtrip_fails(d, parser)) {
    std::fprintf(stderr, "roundtrip_fuzzer: %s\n", why->c_str());
    std::abort();
  }
  return 0;
}
