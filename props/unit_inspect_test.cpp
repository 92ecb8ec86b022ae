// safespec inspect's summary and --values: exact text and JSON on
// the bundled examples, every dtype's decoding, and hostile headers whose
// values must not be read out of bounds.
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "gen/file_bytes.hpp"
#include "props/catch.hpp"
#include "props/json_support.hpp"
#include "props/unit_support.hpp"
#include "spec/limits.hpp"
#include "src/parse/tensor_values.hpp"

using namespace safespec;
using test::Json;
using test::parse_json;
using test::Run;

namespace {

struct InspectScratch : test::CliScratch {
  InspectScratch() : CliScratch("safespec_unit_inspect") {}
};

// The decoded text of the first `n` elements of `bytes` read as `d`, joined.
std::string decoded(Dtype d, std::vector<std::uint8_t> bytes, std::uint64_t n) {
  REQUIRE(bytes.size() >= value_bytes(d, n));
  const TensorValues v = decode_values(d, bytes, n);
  REQUIRE(v.text.size() == n);
  REQUIRE(v.json.size() == n);
  std::string out;
  for (std::size_t i = 0; i < n; ++i) out += (i ? " " : "") + v.text[i] + "|" + v.json[i];
  return out;
}

}  // namespace

TEST_CASE("inspect --values decodes every dtype, text and JSON", "[inspect]") {
  CHECK(decoded(Dtype::BOOL, {0, 1, 2}, 3) == "false|false true|true 0x02 (not 0 or 1)|\"0x02\"");
  CHECK(decoded(Dtype::U8, {0, 255}, 2) == "0|0 255|255");
  CHECK(decoded(Dtype::I8, {0x7F, 0x80, 0xFF}, 3) == "127|127 -128|-128 -1|-1");
  CHECK(decoded(Dtype::I16, {0x00, 0x80, 0xFF, 0x7F}, 2) == "-32768|-32768 32767|32767");
  CHECK(decoded(Dtype::U16, {0xFF, 0xFF}, 1) == "65535|65535");
  CHECK(decoded(Dtype::I32, {0xFE, 0xFF, 0xFF, 0xFF}, 1) == "-2|-2");
  CHECK(decoded(Dtype::U32, {0xFF, 0xFF, 0xFF, 0xFF}, 1) == "4294967295|4294967295");
  CHECK(decoded(Dtype::I64, {0, 0, 0, 0, 0, 0, 0, 0x80}, 1) == "-9223372036854775808|-9223372036854775808");
  CHECK(decoded(Dtype::U64, {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}, 1) ==
        "18446744073709551615|18446744073709551615");
  // 1.0, -2.0, +inf and NaN (JSON strings for the last two).
  CHECK(decoded(Dtype::F16, {0x00, 0x3C, 0x00, 0xC0, 0x00, 0x7C, 0x00, 0x7E}, 4) == "1|1 -2|-2 inf|\"inf\" nan|\"nan\"");
  CHECK(decoded(Dtype::BF16, {0x80, 0x3F, 0xCD, 0x3D}, 2) == "1|1 0.100097656|0.100097656");
  CHECK(decoded(Dtype::F32, {0xCD, 0xCC, 0xCC, 0x3D}, 1) == "0.1|0.1");
  CHECK(decoded(Dtype::F64, {0x9A, 0x99, 0x99, 0x99, 0x99, 0x99, 0xB9, 0x3F}, 1) == "0.1|0.1");
  // E4M3FN: 1.0, 448 (the largest), NaN at 0x7F; E5M2: 1.0, inf at 0x7C.
  CHECK(decoded(Dtype::F8_E4M3, {0x38, 0x7E, 0x7F}, 3) == "1|1 448|448 nan|\"nan\"");
  CHECK(decoded(Dtype::F8_E5M2, {0x3C, 0x7C}, 2) == "1|1 inf|\"inf\"");
  // E8M0 as OCP MX: 127 is 2^0, 0 is 2^-127, 255 NaN.
  CHECK(decoded(Dtype::F8_E8M0, {127, 128, 0, 255}, 4) == "1|1 2|2 5.877472e-39|5.877472e-39 nan|\"nan\"");
  // fnuz: bias 8 and 16, NaN only at 0x80 (no negative zero).
  CHECK(decoded(Dtype::F8_E4M3FNUZ, {0x40, 0x80}, 2) == "1|1 nan|\"nan\"");
  CHECK(decoded(Dtype::F8_E5M2FNUZ, {0x40, 0x80}, 2) == "1|1 nan|\"nan\"");
  // F4 E2M1, element 2j in the low nibble: 0x21 is 0.5 then 1.0; 0xF7 is 6 then -6.
  CHECK(decoded(Dtype::F4, {0x21, 0xF7}, 4) == "0.5|0.5 1|1 6|6 -6|-6");
  CHECK(decoded(Dtype::F4, {0x21}, 1) == "0.5|0.5");
  // F6 as a little-endian bit stream: E2M3 codes 0x08 (1.0) and 0x3F (-7.5).
  CHECK(decoded(Dtype::F6_E2M3, {0x08 | ((0x3F << 6) & 0xFF), 0x3F >> 2}, 2) == "1|1 -7.5|-7.5");
  // E3M2: 0x0C is 1.0, 0x1F is 28 (the largest).
  CHECK(decoded(Dtype::F6_E3M2, {0x0C | ((0x1F << 6) & 0xFF), 0x1F >> 2}, 2) == "1|1 28|28");
  CHECK(decoded(Dtype::C64, {0, 0, 0x80, 0x3F, 0, 0, 0, 0xC0}, 1) == "(1-2j)|[1,-2]");
  CHECK(value_bytes(Dtype::F4, 3) == 2);
  CHECK(value_bytes(Dtype::F6_E2M3, 4) == 3);
  CHECK(value_bytes(Dtype::C64, 2) == 16);
}

TEST_CASE("inspect --values: hostile headers are reported, never read out of bounds", "[inspect]") {
  InspectScratch s;
  // A shape of 2^62 x 4 F32 elements whose data_offsets hold 16 bytes: the
  // first 16 elements need 64 bytes, which the tensor does not have.
  const auto huge = s.file("huge.safetensors",
                           gen::file_with_header(R"({"big":{"dtype":"F32","shape":[4611686018427387904,4],"data_offsets":[0,16]}})", 16));
  const Run h = s.run("inspect --values big " + test::shell_word(huge));
  CHECK(h.code == 2);
  CHECK(h.out.ends_with("values 'big' F32 [4611686018427387904,4]: not read: its first 16 elements need 64 bytes, "
                        "its data_offsets [0, 16] hold 16\n"));
  // Two elements fit in the 16 bytes the offsets give, and the count says
  // the tensor has more elements than 64 bits count.
  const Run h2 = s.run("inspect --values big --count 2 " + test::shell_word(huge));
  CHECK(h2.code == 0);
  CHECK(h2.out.ends_with("values 'big' F32 [4611686018427387904,4]: first 2 of 2^64 or more elements (truncated; "
                         "--count K shows up to 4096): 0, 0\n"));
  // The header promises 16 bytes, the file holds 8: only bytes inside the
  // file are read.
  const auto cut = s.file("cut.safetensors",
                          gen::file_with_header(R"({"t":{"dtype":"I32","shape":[4],"data_offsets":[0,16]}}    )", 8));
  const Run c = s.run("inspect --values t " + test::shell_word(cut));
  CHECK(c.code == 2);
  CHECK(c.out.ends_with("values 't' I32 [4]: not read: 16 bytes at data_offsets [0, 16] lie outside the file (75 bytes)\n"));
  const Run c2 = s.run("inspect --values t --count 2 " + test::shell_word(cut));
  CHECK(c2.code == 0);
  CHECK(c2.out.ends_with("values 't' I32 [4]: first 2 of 4 elements (truncated; --count K shows up to 4096): 0, 0\n"));
  const Run cj = s.run("inspect --json --values t " + test::shell_word(cut));
  CHECK(cj.code == 2);
  CHECK(cj.out.find(R"x(,"values":[{"name":"t","dtype":"I32","shape":[4],"error":"16 bytes at data_offsets [0, 16] lie outside the file (75 bytes)"}],"truncated":{)x") !=
        std::string::npos);
}

TEST_CASE("inspect --values: an unknown name is a usage error naming the tensors, bounded", "[inspect]") {
  InspectScratch s;
  std::string header = "{";
  for (int i = 0; i < 25; ++i)
    header += (i ? "," : "") + std::string("\"t") + std::to_string(i) + R"(":{"dtype":"U8","shape":[1],"data_offsets":[)" +
              std::to_string(i) + "," + std::to_string(i + 1) + "]}";
  const auto p = s.file("many.safetensors", gen::file_with_header(header + "}", 25));
  const Run r = s.run("inspect --values nope " + test::shell_word(p));
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  std::string names;
  for (int i = 0; i < 20; ++i) names += (i ? ", " : "") + std::string("'t") + std::to_string(i) + "'";
  CHECK(r.err == "safespec: inspect --values 'nope': no such tensor in " + p + " (tensors: " + names + ", … and 5 more)\n");
  const Run j = s.run("inspect --json --values nope " + test::shell_word(p));
  CHECK(j.code == 2);
  CHECK(j.out.starts_with(R"({"schema":1,"path":")" + p + R"(","error":"--values 'nope': no such tensor in )"));
  for (const char* count : {"0", "4097", "-1", "x"}) {
    INFO(count);
    const Run bad = s.run("inspect --values t0 --count " + std::string(count) + " " + test::shell_word(p));
    CHECK(bad.code == 2);
    CHECK(bad.err.starts_with("--count: expected 1 to 4096 elements, found " + std::string(count) + "\n"));
  }
  CHECK(s.run("inspect --values t0 --count 4096 " + test::shell_word(p)).out.ends_with("values 't0' U8 [1]: 1 of 1 elements: 0\n"));
}

TEST_CASE("inspect --json: every bundled example gives one document whose summary agrees with table", "[inspect]") {
  InspectScratch s;
  std::vector<std::string> paths{"corpus/examples/tiny-llm.safetensors", "corpus/examples/scalars-and-subbyte.safetensors",
                                 "corpus/examples/sharded/model.safetensors.index.json"};
  for (const auto& e : std::filesystem::directory_iterator("corpus/examples/quant")) paths.push_back(e.path().string());
  for (const std::string& p : paths) {
    INFO(p);
    const Run r = s.run("inspect --json " + test::shell_word(p));
    CHECK(r.code == 0);
    const Json doc = parse_json(r.out);
    const Json summary = doc["summary"];
    // The parameters per dtype add up to the total.
    std::uint64_t params = 0, tensors = 0;
    for (Json d : summary["dtypes"]) {
      params += std::uint64_t(d["parameters"]);
      tensors += std::uint64_t(d["tensors"]);
    }
    CHECK(params == std::uint64_t(summary["parameters"]));
    CHECK(tensors == std::uint64_t(summary["tensors"]));
    // Each consumer's checkpoint verdict is table's.
    const Run t = s.run("table --json " + test::shell_word(p));
    const Json tdoc = parse_json(t.out);
    for (Json f : tdoc["files"]) {
      if (std::string_view(f["path"]).ends_with(".index.json")) continue;
      for (const char* c : {"safetensors", "sglang", "comfyui", "kitchen"}) {
        INFO(c);
        const bool loads = bool(f["consumers"][c]["loads"]);
        if (!loads) CHECK(bool(summary["verdicts"][c]["loads"]) == false);
      }
    }
    for (const char* c : {"safetensors", "sglang", "comfyui", "kitchen"}) {
      INFO(c);
      bool all_load = true;
      for (Json f : tdoc["files"])
        if (!std::string_view(f["path"]).ends_with(".index.json")) all_load = all_load && bool(f["consumers"][c]["loads"]);
      CHECK(bool(summary["verdicts"][c]["loads"]) == all_load);
    }
  }
}

TEST_CASE("inspect (issue 15): the summary of a quantized example, exact: dtypes, layers, marker, group sizes, consumers", "[inspect]") {
  InspectScratch s;
  const Run r = s.run("inspect corpus/examples/quant/w4a8_convrot_groupsize_64.safetensors");
  CHECK(r.code == 0);
  // The listing as before, then the summary: kitchen's CUDA kernel refuses
  // convrot_groupsize 64 (table says the same), sglang and ComfyUI load it.
  CHECK(r.out ==
      "header length 632 bytes, data 872 bytes, 6 tensors\n"
      "  'model.layers.0.mlp.down_proj.weight_codebook' F32 [16] bytes=64 offsets=[0, 64]\n"
      "  'model.layers.0.mlp.down_proj.weight_s_channel' F32 [4] bytes=16 offsets=[64, 80]\n"
      "  'model.norm.weight' BF16 [64] bytes=128 offsets=[80, 208]\n"
      "  'model.layers.0.mlp.down_proj.weight_s_rel' F8_E4M3 [4,16] bytes=64 offsets=[208, 272]\n"
      "  'model.layers.0.mlp.down_proj.weight' I8 [4,128] bytes=512 offsets=[272, 784]\n"
      "  'model.layers.0.mlp.down_proj.comfy_quant' U8 [88] bytes=88 offsets=[784, 872]\n"
      "metadata: 2 keys\n"
      "  'format' = 'pt'\n"
      "  'producer' = 'safespec make_corpus'\n"
      "summary: 6 tensors, 748 parameters, 872 bytes\n"
      "  U8: 1 tensor, 88 parameters, 88 bytes\n"
      "  I8: 1 tensor, 512 parameters, 512 bytes\n"
      "  F8_E4M3: 1 tensor, 64 parameters, 64 bytes\n"
      "  BF16: 1 tensor, 64 parameters, 128 bytes\n"
      "  F32: 2 tensors, 20 parameters, 80 bytes\n"
      "layers by prefix: 2\n"
      "  'model.layers.0.mlp.down_proj': 5 tensors (weight_codebook, weight_s_channel, weight_s_rel, weight, comfy_quant), 684 parameters, 744 bytes\n"
      "  'model.norm': 1 tensor (weight), 64 parameters, 128 bytes\n"
      "logical sizes: 1260 parameters (748 as stored), quantized layers 744 of 872 bytes\n"
      "  'model.layers.0.mlp.down_proj'  asym_w4a8_int8  [4,256]  1024 parameters  744 bytes\n"
      "quantized layers: 1 (verdicts from the header rules only)\n"
      "  'model.layers.0.mlp.down_proj': asym_w4a8_int8, marker tensor 'model.layers.0.mlp.down_proj.comfy_quant', group_size 16, convrot_groupsize 64\n"
      "    sglang: loads (KitchenW4A8Config)\n"
      "    comfyui: loads\n"
      "    kitchen: rejects by CQ-W4A8-CUDA-GROUPSIZE (RuntimeError: convrot fused kernel only supports group_size 256)\n"
      "verdicts (header rules only; `safespec check --data` adds the value rules):\n"
      "  safetensors: loads\n"
      "  sglang: loads (KitchenW4A8Config)\n"
      "  comfyui: loads\n"
      "  kitchen: rejects by CQ-W4A8-CUDA-GROUPSIZE at layer 'model.layers.0.mlp.down_proj' (RuntimeError: convrot fused kernel only supports group_size 256)\n"
      "metadata keys: 'format', 'producer'\n");
  const Run j = s.run("inspect --json corpus/examples/quant/w4a8_convrot_groupsize_64.safetensors");
  CHECK(j.code == 0);
  CHECK(j.out.find(R"x(,"summary":{"tensors":6,"parameters":748,"bytes":872,"logical_parameters":1260,"quantized_bytes":744,"dtypes":[{"dtype":"U8","tensors":1,"parameters":88,"bytes":88},{"dtype":"I8","tensors":1,"parameters":512,"bytes":512},{"dtype":"F8_E4M3","tensors":1,"parameters":64,"bytes":64},{"dtype":"BF16","tensors":1,"parameters":64,"bytes":128},{"dtype":"F32","tensors":2,"parameters":20,"bytes":80}],"groups":[{"prefix":"model.layers.0.mlp.down_proj","suffixes":["weight_codebook","weight_s_channel","weight_s_rel","weight","comfy_quant"],"parameters":684,"bytes":744},{"prefix":"model.norm","suffixes":["weight"],"parameters":64,"bytes":128}],"quantized_layers":[{"prefix":"model.layers.0.mlp.down_proj","format":"asym_w4a8_int8","site":"tensor","marker":"tensor 'model.layers.0.mlp.down_proj.comfy_quant'","file":"corpus/examples/quant/w4a8_convrot_groupsize_64.safetensors","packing":"nibbles","logical_shape":[4,256],"logical_shape_error":null,"logical_parameters":1024,"stored_bytes":744,"group_sizes":{"group_size":16,"convrot_groupsize":64},"consumers":{"sglang":{"verdict":"loads","rule":null,"error":null,"message":null,"config":"KitchenW4A8Config","assumes":[],"unchecked":[]},"comfyui":{"verdict":"loads","rule":null,"error":null,"message":null,"config":null,"assumes":[],"unchecked":[]},"kitchen":{"verdict":"rejects","rule":"CQ-W4A8-CUDA-GROUPSIZE","error":"RuntimeError","message":"convrot fused kernel only supports group_size 256","config":null,"assumes":[],"unchecked":[]}}}],"verdicts":{"safetensors":{"loads":true,"error":null,"message":null,"config":null,"rule":null,"where":null,"mis_loads":[],"assumes":[],"unchecked":[]},"sglang":{"loads":true,"error":null,"message":null,"config":"KitchenW4A8Config","rule":null,"where":null,"mis_loads":[],"assumes":[],"unchecked":[]},"comfyui":{"loads":true,"error":null,"message":null,"config":null,"rule":null,"where":null,"mis_loads":[],"assumes":[],"unchecked":[]},"kitchen":{"loads":false,"error":"RuntimeError","message":"convrot fused kernel only supports group_size 256","config":null,"rule":"CQ-W4A8-CUDA-GROUPSIZE","where":"layer 'model.layers.0.mlp.down_proj'","mis_loads":[],"assumes":[],"unchecked":[]}},"verdicts_from":"header rules","metadata_keys":["format","producer"]},"truncated":null}
)x") != std::string::npos);
}

TEST_CASE("inspect (issue 15): a marker from _quantization_metadata, an assumed embedding, an unreadable marker", "[inspect]") {
  InspectScratch s;
  const auto tail = [](const std::string& out, std::string_view from) {
    const auto at = out.find(from);
    return at == std::string::npos ? std::string() : out.substr(at);
  };
  CHECK(tail(s.run("inspect corpus/examples/quant/w4a8_metadata_valid.safetensors").out, "quantized layers:") ==
      "quantized layers: 2 (verdicts from the header rules only)\n"
      "  'model.layers.0.mlp.down_proj': asym_w4a8_int8, marker __metadata__['_quantization_metadata'] key 'layers' key 'model.layers.0.mlp.down_proj', group_size 16, convrot_groupsize 256\n"
      "    sglang: loads (KitchenW4A8Config)\n"
      "    comfyui: loads\n"
      "    kitchen: loads\n"
      "  'model.layers.0.self_attn.o_proj': asym_w4a8_int8, marker __metadata__['_quantization_metadata'] key 'layers' key 'model.layers.0.self_attn.o_proj', group_size 16, convrot_groupsize 256\n"
      "    sglang: loads (KitchenW4A8Config)\n"
      "    comfyui: loads\n"
      "    kitchen: loads\n"
      "verdicts (header rules only; `safespec check --data` adds the value rules):\n"
      "  safetensors: loads\n"
      "  sglang: loads (KitchenW4A8Config)\n"
      "  comfyui: loads\n"
      "  kitchen: loads\n"
      "metadata keys: '_quantization_metadata', 'format', 'producer'\n");
  // sglang's "loads" rests on the layer kind it cannot see: it says so.
  CHECK(tail(s.run("inspect corpus/examples/quant/w4a8_int8_embedding_valid.safetensors").out, "quantized layers:") ==
      "quantized layers: 2 (verdicts from the header rules only)\n"
      "  'model.embed_tokens': int8_tensorwise, marker tensor 'model.embed_tokens.comfy_quant'\n"
      "    sglang: loads (KitchenW4A8Config); 'model.embed_tokens' assumed embedding (if not: ValueError: Unsupported quantized linear marker for 'model.embed_tokens')\n"
      "    comfyui: loads\n"
      "    kitchen: loads\n"
      "  'model.layers.0.mlp.down_proj': asym_w4a8_int8, marker tensor 'model.layers.0.mlp.down_proj.comfy_quant', group_size 16, convrot_groupsize 256\n"
      "    sglang: loads (KitchenW4A8Config); 'model.embed_tokens' assumed embedding (if not: ValueError: Unsupported quantized linear marker for 'model.embed_tokens')\n"
      "    comfyui: loads\n"
      "    kitchen: loads\n"
      "verdicts (header rules only; `safespec check --data` adds the value rules):\n"
      "  safetensors: loads\n"
      "  sglang: loads (KitchenW4A8Config); 'model.embed_tokens' assumed embedding (if not: ValueError: Unsupported quantized linear marker for 'model.embed_tokens')\n"
      "  comfyui: loads\n"
      "  kitchen: loads\n"
      "metadata keys: 'format', 'producer'\n");
  // A marker that is not JSON makes no layer; the verdicts name the rule.
  const Run m = s.run("inspect corpus/examples/quant/marker_not_json.safetensors");
  CHECK(m.out.find("quantized layers:") == std::string::npos);
  CHECK(tail(m.out, "verdicts (") ==
      "verdicts (header rules only; `safespec check --data` adds the value rules):\n"
      "  safetensors: loads\n"
      "  sglang: rejects by CQ-MARKER-JSON at tensor 'model.layers.0.mlp.down_proj.comfy_quant' (ValueError: Invalid Comfy quantization marker 'model.layers.0.mlp.down_proj.comfy_quant' in corpus/examples/quant/marker_not_json.safetensors)\n"
      "  comfyui: rejects by CQ-MARKER-JSON at tensor 'model.layers.0.mlp.down_proj.comfy_quant' (JSONDecodeError: Expecting value: line 1 column 12 (char 11))\n"
      "  kitchen: loads\n"
      "metadata keys: 'format', 'producer'\n");
}

TEST_CASE("inspect (issue 15): a shard index gets one summary over its shards", "[inspect]") {
  InspectScratch s;
  const Run r = s.run("inspect corpus/examples/sharded/model.safetensors.index.json");
  CHECK(r.code == 0);
  CHECK(r.out.ends_with(
      "summary: 3 tensors, 36 parameters, 112 bytes\n"
      "  BF16: 1 tensor, 16 parameters, 32 bytes\n"
      "  F32: 2 tensors, 20 parameters, 80 bytes\n"
      "layers by prefix: 2\n"
      "  'model.layers.0': 2 tensors (bias, weight), 20 parameters, 80 bytes\n"
      "  'model.layers.1': 1 tensor (weight), 16 parameters, 32 bytes\n"
      "verdicts (header rules only; `safespec check --data` adds the value rules):\n"
      "  safetensors: loads\n"
      "  sglang: loads\n"
      "  comfyui: loads\n"
      "  kitchen: loads\n"
      "metadata keys: 'format'\n"));
}

TEST_CASE("inspect --values: the sub-byte, fp8 and complex tensors of an example, text and JSON", "[inspect]") {
  InspectScratch s;
  const Run r = s.run("inspect --values complex --values scale --values empty --values mx.scales --values f6 "
                      "--values mx.blocks --values mask corpus/examples/scalars-and-subbyte.safetensors");
  CHECK(r.code == 0);
  CHECK(r.out.ends_with(
      "values 'complex' C64 [2]: 2 of 2 elements: (6.140499e+25-4.7142993e+23j), (8.9992764e+20-6.904089e+18j)\n"
      "values 'scale' F32 []: 1 of 1 elements: 1.4546995e+22\n"
      "values 'empty' F16 [0,4]: 0 of 0 elements\n"
      "values 'mx.scales' F8_E8M0 [4]: 4 of 4 elements: 6.018531e-36, 1.2924697e-26, 2.7755576e-17, 5.9604645e-08\n"
      "values 'f6' F6_E2M3 [2,4]: 8 of 8 elements: 1.375, -1, 2.5, 2.5, -1, 6.5, -1, -1.125\n"
      "values 'mx.blocks' F4 [4,8]: first 16 of 32 elements (truncated; --count K shows up to 4096): -0.5, 0, -0, 1, 6, 2, 4, 4, 3, -0, 2, -1, 1.5, -2, 1, -4\n"
      "values 'mask' BOOL [5]: 5 of 5 elements: 0x0c (not 0 or 1), 0x2b (not 0 or 1), 0x4a (not 0 or 1), 0x69 (not 0 or 1), 0x88 (not 0 or 1)\n"));
  const Run j = s.run("inspect --json --values mx.blocks --values f6 --count 4 corpus/examples/scalars-and-subbyte.safetensors");
  CHECK(j.code == 0);
  CHECK(j.out.find(R"x(,"values":[{"name":"mx.blocks","dtype":"F4","shape":[4,8],"elements":32,"count":4,"truncated":true,"values":[-0.5,0,-0,1]},{"name":"f6","dtype":"F6_E2M3","shape":[2,4],"elements":8,"count":4,"truncated":true,"values":[1.375,-1,2.5,2.5]}],"truncated":null}
)x") != std::string::npos);
}

TEST_CASE("inspect: a layer's packing is its own, tile-packed or 6-bit, not only its format's", "[inspect]") {
  InspectScratch s;
  const auto packing = [&](const std::string& file) {
    const Run j = s.run("inspect --json corpus/examples/quant/" + file);
    const std::size_t at = j.out.find("\"packing\":");
    return at == std::string::npos ? std::string("none") : j.out.substr(at, j.out.find(',', at) - at);
  };
  CHECK(packing("svdquant_w4a4_tilepack.safetensors") == R"("packing":"tile_packed4")");
  CHECK(packing("svdquant_w4a4_natural.safetensors") == R"("packing":"nibbles")");
  CHECK(packing("w6a8_valid_for_kitchen_2a6f4ef.safetensors") == R"("packing":"bits6")");
  CHECK(packing("w4a8_valid.safetensors") == R"("packing":"nibbles")");
}
