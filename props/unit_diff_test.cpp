// safespec diff A B: two checkpoints compared by header, exact
// text and JSON on the bundled examples and on hand-built files.
#include <string>

#include "gen/file_bytes.hpp"
#include "props/catch.hpp"
#include "props/unit_support.hpp"

using namespace safespec;
using test::Run;

namespace {

struct DiffScratch : test::CliScratch {
  DiffScratch() : CliScratch("safespec_unit_diff") {}
};

}  // namespace

TEST_CASE("diff (issue 15): a quantized layer's group size changes and comfy-kitchen stops loading it", "[diff]") {
  DiffScratch s;
  const Run r = s.run("diff corpus/examples/quant/w4a8_valid.safetensors corpus/examples/quant/w4a8_convrot_groupsize_64.safetensors");
  CHECK(r.code == 1);
  CHECK(r.out ==
      "corpus/examples/quant/w4a8_valid.safetensors and corpus/examples/quant/w4a8_convrot_groupsize_64.safetensors: 3 differences\n"
      "  tensor changed: 'model.layers.0.mlp.down_proj.comfy_quant' U8 [89] -> U8 [88]\n"
      "  quantized layer changed: 'model.layers.0.mlp.down_proj' asym_w4a8_int8 (tensor marker, group_size 16, convrot_groupsize 256) -> asym_w4a8_int8 (tensor marker, group_size 16, convrot_groupsize 64); marker {'format': 'asym_w4a8_int8', 'group_size': 16, 'convrot_groupsize': 256, 'convrot': True} -> {'format': 'asym_w4a8_int8', 'group_size': 16, 'convrot_groupsize': 64, 'convrot': True}\n"
      "  verdict kitchen: loads -> rejects (RuntimeError: convrot fused kernel only supports group_size 256), because CQ-W4A8-CUDA-GROUPSIZE at layer 'model.layers.0.mlp.down_proj'\n");
  const Run same = s.run("diff corpus/examples/quant/w4a8_valid.safetensors corpus/examples/quant/w4a8_valid.safetensors");
  CHECK(same.code == 0);
  CHECK(same.out == "corpus/examples/quant/w4a8_valid.safetensors and corpus/examples/quant/w4a8_valid.safetensors: "
                    "equal headers (tensors, quantized layers, metadata, verdicts)\n");
}

TEST_CASE("diff (issue 15): tensors added and removed, a marker moved into __metadata__, a metadata key added", "[diff]") {
  DiffScratch s;
  const Run r = s.run("diff corpus/examples/quant/w4a8_valid.safetensors corpus/examples/quant/w4a8_metadata_valid.safetensors");
  CHECK(r.code == 1);
  CHECK(r.out ==
      "corpus/examples/quant/w4a8_valid.safetensors and corpus/examples/quant/w4a8_metadata_valid.safetensors: 8 differences\n"
      "  tensor removed: 'model.layers.0.mlp.down_proj.comfy_quant' U8 [89]\n"
      "  tensor added: 'model.layers.0.self_attn.o_proj.weight' I8 [4,128]\n"
      "  tensor added: 'model.layers.0.self_attn.o_proj.weight_codebook' F32 [16]\n"
      "  tensor added: 'model.layers.0.self_attn.o_proj.weight_s_channel' F32 [4]\n"
      "  tensor added: 'model.layers.0.self_attn.o_proj.weight_s_rel' F8_E4M3 [4,16]\n"
      "  quantized layer changed: 'model.layers.0.mlp.down_proj' asym_w4a8_int8 (tensor marker, group_size 16, convrot_groupsize 256) -> asym_w4a8_int8 (metadata marker, group_size 16, convrot_groupsize 256)\n"
      "  quantized layer added: 'model.layers.0.self_attn.o_proj' asym_w4a8_int8 (metadata marker, group_size 16, convrot_groupsize 256)\n"
      "  metadata added: '_quantization_metadata' = (286 bytes)\n");
}

TEST_CASE("diff --json (issue 15): sglang's verdict changes, with the rule that makes it reject", "[diff]") {
  DiffScratch s;
  const Run r = s.run("diff --json corpus/examples/quant/int8_convrot_valid.safetensors corpus/examples/quant/int8_no_convrot.safetensors");
  CHECK(r.code == 1);
  CHECK(r.out == R"x({"schema":1,"a":"corpus/examples/quant/int8_convrot_valid.safetensors","b":"corpus/examples/quant/int8_no_convrot.safetensors","equal":false,"tensors":[{"change":"changed","name":"model.layers.0.mlp.down_proj.comfy_quant","a":{"dtype":"U8","shape":[71]},"b":{"dtype":"U8","shape":[29]}},{"change":"changed","name":"model.layers.0.mlp.down_proj.weight_scale","a":{"dtype":"F32","shape":[4,1]},"b":{"dtype":"F32","shape":[]}}],"quantized_layers":[{"change":"changed","prefix":"model.layers.0.mlp.down_proj","a":{"format":"int8_tensorwise","site":"tensor","group_sizes":{"convrot_groupsize":"64"},"marker":"{'format': 'int8_tensorwise', 'convrot': True, 'convrot_groupsize': 64}"},"b":{"format":"int8_tensorwise","site":"tensor","group_sizes":{},"marker":"{'format': 'int8_tensorwise'}"}}],"metadata":[],"consumers":[{"consumer":"sglang","a":{"loads":true,"error":null,"message":null,"config":"KitchenInt8Config","mis_loads":[]},"b":{"loads":false,"error":"ValueError","message":"Serialized kitchen_int8 layer 'model.layers.0.mlp.down_proj' must set convrot=true","config":null,"mis_loads":[]},"because":{"rule":"CQ-INT8-CONVROT","where":"layer 'model.layers.0.mlp.down_proj'"}}]})x" "\n");
}

TEST_CASE("diff (issue 15): a dtype and a metadata value change, a directory equals its index, a side it cannot read", "[diff]") {
  DiffScratch s;
  const auto a = s.file("a.safetensors", gen::file_with_header(
      R"({"__metadata__":{"format":"pt"},"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", 8));
  const auto b = s.file("b.safetensors", gen::file_with_header(
      R"({"__metadata__":{"format":"np"},"w":{"dtype":"BF16","shape":[4],"data_offsets":[0,8]}})", 8));
  const Run r = s.run("diff " + test::shell_word(a) + " " + test::shell_word(b));
  CHECK(r.code == 1);
  CHECK(r.out == a + " and " + b + ": 2 differences\n"
                 "  tensor changed: 'w' F32 [2] -> BF16 [4]\n"
                 "  metadata changed: 'format' = 'pt' -> 'np'\n");
  const Run j = s.run("diff --json " + test::shell_word(a) + " " + test::shell_word(b));
  CHECK(j.code == 1);
  CHECK(j.out.ends_with(R"x(,"equal":false,"tensors":[{"change":"changed","name":"w","a":{"dtype":"F32","shape":[2]},"b":{"dtype":"BF16","shape":[4]}}],)x"
                        R"x("quantized_layers":[],"metadata":[{"change":"changed","key":"format","a":"pt","b":"np"}],"consumers":[]})x" "\n"));
  // One checkpoint named two ways: the same headers.
  const Run d = s.run("diff corpus/examples/sharded corpus/examples/sharded/model.safetensors.index.json");
  CHECK(d.code == 0);
  // A side that cannot be read is not "different": exit 2, with why.
  const Run gone = s.run("diff " + test::shell_word(a) + " " + test::shell_word(a + ".missing"));
  CHECK(gone.code == 2);
  CHECK(gone.out.empty());
  CHECK(gone.err == "safespec: diff: cannot compare: " + a + ".missing: cannot open: No such file or directory\n");
  const auto bad = s.file("bad.safetensors", gen::file_with_header("{\"a\":", 0));
  const Run broken = s.run("diff --json " + test::shell_word(a) + " " + test::shell_word(bad));
  CHECK(broken.code == 2);
  CHECK(broken.out.starts_with(R"({"schema":1,"a":")" + a + R"(","b":")" + bad + R"(","error":")" + bad + ": ST-"));
}
