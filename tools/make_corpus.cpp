// make_corpus DIR: writes DIR/examples (valid files, a sharded checkpoint,
// DIR/examples/bad and the quantized checkpoints of DIR/examples/quant),
// DIR/header_fuzzer, DIR/differential_fuzzer, DIR/marker_fuzzer and
// DIR/checkpoint_fuzzer, DIR/linear_fuzzer, DIR/roundtrip_fuzzer and
// DIR/index_fuzzer and DIR/npy_fuzzer. The
// output is deterministic; `make_corpus corpus` regenerates the committed
// corpus and the corpus.regenerates_identically test checks it is current.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "src/io/writer.hpp"
#include "tools/corpus_seeds.hpp"
#include "tools/fuzz_seeds.hpp"
#include "tools/quant_examples.hpp"

namespace fs = std::filesystem;
using namespace safespec;

namespace {

struct Owned {
  std::string name;
  Dtype dtype;
  std::vector<std::uint64_t> shape;
  std::vector<std::uint8_t> bytes;
};

Owned tensor(std::string name, Dtype d, std::vector<std::uint64_t> shape, std::uint8_t seed) {
  std::uint64_t bits = dtype_bits(d);
  for (auto dim : shape) bits *= dim;
  std::vector<std::uint8_t> bytes(bits / 8);
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<std::uint8_t>(i * 31 + seed);
  return {std::move(name), d, std::move(shape), std::move(bytes)};
}

std::vector<std::uint8_t> build(const std::vector<Owned>& tensors, const std::optional<Metadata>& metadata) {
  std::vector<TensorView> views;
  for (const auto& t : tensors) views.push_back({t.name, t.dtype, t.shape, t.bytes});
  auto bytes = serialize(views, metadata);
  if (!bytes) {
    std::fprintf(stderr, "make_corpus: writer refused a generated file: %s\n", bytes.error().message.c_str());
    std::exit(1);
  }
  return std::move(bytes).value();
}

void put(const fs::path& path, const std::vector<std::uint8_t>& bytes) {
  fs::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!out) {
    std::fprintf(stderr, "make_corpus: cannot write %s\n", path.c_str());
    std::exit(1);
  }
}

void put_text(const fs::path& path, const std::string& text) { put(path, {text.begin(), text.end()}); }

// linear_fuzzer seeds (src/oracles/oracles_w4a8.cpp, w4a8_fast_differs(bytes)): four
// header bytes (flags, shape, dtypes, run) and a deterministic payload from
// a linear congruential generator; payload byte 0 of a value is its tag.
std::vector<tools::NamedFile> linear_seeds() {
  struct Seed {
    const char* name;
    std::uint8_t flags, shape, types, run;
  };
  // flags: 1 eager, 2 fma, 4 ftz, 8 reciprocal scale, 16 trace, 32 any C, 64 codebook, 128 correction.
  // shape: G = [4,8,16,32,64][s % 5], C = [4,16,64,256][s / 5 % 4], K = lcm · (s / 20 % 2 + 1).
  // types: T_x = [F32,BF16,F16][t % 3], T_o = t / 4 % 4 (3: T_x), N = t / 16 % 6 + 1.
  // run: M = r % 4 + 1, threads = r / 4 % 3 + 1, kernel = [scalar,avx2,auto,vnni][r / 16 % 4], 64 bias.
  const Seed seeds[] = {
      {"cuda_bf16_g64_m1", 2 | 4 | 16, 4, 1 | 12 | 48, 0 | 4 | 32},
      {"cuda_f16_g16_bias_2k", 2 | 4, 2 + 20, 2 | 12 | 80, 3 | 8 | 16 | 64},
      {"cuda_f32_codebook_correction", 2 | 64 | 128 | 16, 3, 0 | 4 | 32, 2 | 64},
      {"cuda_bf16_to_f32_nofma_noftz", 128 | 16, 0 + 20, 1 | 0 | 64, 1 | 4},
      {"cuda_any_c4_g4", 2 | 4 | 32 | 16, 0, 1 | 12 | 16, 3 | 32},
      {"eager_bf16_c16_g8", 1 | 16, 1 + 5, 1 | 12 | 32, 3 | 8 | 32},
      {"eager_f16_c64_recip_bias", 1 | 8, 4 + 10, 2 | 4 | 48, 2 | 64 | 16},
      {"eager_f32_c256_codebook", 1 | 64 | 16, 4 + 15, 0 | 12 | 16, 1},
      {"eager_correction_unquantized", 1 | 128 | 16, 2 + 5, 1 | 12 | 16, 1 | 64},
      {"eager_f16_c4_to_bf16", 1 | 16, 0 + 0 + 20, 2 | 4 | 80, 3 | 8},
  };
  std::vector<tools::NamedFile> out;
  std::uint32_t state = 0x5AFE5EEDu;
  for (const Seed& s : seeds) {
    std::vector<std::uint8_t> bytes = {s.flags, s.shape, s.types, s.run};
    for (int i = 0; i < 3000; ++i) {
      state = state * 1664525u + 1013904223u;
      bytes.push_back(static_cast<std::uint8_t>(state >> 24));
    }
    out.emplace_back(s.name, std::move(bytes));
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_corpus DIR\n");
    return 2;
  }
  const fs::path root(argv[1]);
  std::vector<tools::NamedFile> valid;

  valid.emplace_back("tiny-llm.safetensors",
                     build({tensor("model.embed_tokens.weight", Dtype::BF16, {16, 8}, 1),
                            tensor("model.layers.0.self_attn.q_proj.weight", Dtype::F16, {8, 8}, 2),
                            tensor("model.layers.0.mlp.up_proj.weight", Dtype::F32, {8, 4}, 3),
                            tensor("model.norm.weight", Dtype::F32, {8}, 4),
                            tensor("position_ids", Dtype::I64, {1, 16}, 5),
                            tensor("lm_head.weight", Dtype::BF16, {16, 8}, 6)},
                           Metadata{{"format", "pt"}, {"producer", "safespec make_corpus"}}));
  valid.emplace_back("scalars-and-subbyte.safetensors",
                     build({tensor("scale", Dtype::F32, {}, 7), tensor("empty", Dtype::F16, {0, 4}, 8),
                            tensor("mx.blocks", Dtype::F4, {4, 8}, 9), tensor("mx.scales", Dtype::F8_E8M0, {4}, 10),
                            tensor("f6", Dtype::F6_E2M3, {2, 4}, 11), tensor("mask", Dtype::BOOL, {5}, 12),
                            tensor("complex", Dtype::C64, {2}, 13)},
                           std::nullopt));
  for (const auto& [name, bytes] : valid) put(root / "examples" / name, bytes);

  const auto shard1 = build({tensor("model.layers.0.weight", Dtype::F32, {4, 4}, 14),
                             tensor("model.layers.0.bias", Dtype::F32, {4}, 15)},
                            Metadata{{"format", "pt"}});
  const auto shard2 = build({tensor("model.layers.1.weight", Dtype::BF16, {4, 4}, 16)}, Metadata{{"format", "pt"}});
  put(root / "examples" / "sharded" / "model-00001-of-00002.safetensors", shard1);
  put(root / "examples" / "sharded" / "model-00002-of-00002.safetensors", shard2);
  put_text(root / "examples" / "sharded" / "model.safetensors.index.json",
           "{\n  \"metadata\": {\"total_size\": 112},\n  \"weight_map\": {\n"
           "    \"model.layers.0.bias\": \"model-00001-of-00002.safetensors\",\n"
           "    \"model.layers.0.weight\": \"model-00001-of-00002.safetensors\",\n"
           "    \"model.layers.1.weight\": \"model-00002-of-00002.safetensors\"\n  }\n}\n");

  const auto seeds = tools::hand_written_seeds();
  // The examples' prefixes say whose verdict they are, as the conformance
  // suite's do (conformance/manifest.hpp): the reference reads the duplicate
  // (last one wins) and only strict rejects it.
  for (const auto& [name, bytes] : seeds)
    if (name.rfind("reject_F8", 0) == 0 || name.rfind("reject_F13", 0) == 0 || name == "reject_F6_unknown_dtype")
      put(root / "examples" / "bad" / (name + ".safetensors"), bytes);
    else if (name == "accept_duplicate_tensor_last_wins")
      put(root / "examples" / "bad" / "strict-reject_duplicate_tensor_last_wins.safetensors", bytes);

  for (const char* target : {"header_fuzzer", "differential_fuzzer"}) {
    for (const auto& [name, bytes] : seeds) put(root / target / name, bytes);
    for (const auto& [name, bytes] : valid) put(root / target / ("accept_example_" + name), bytes);
    put(root / target / "accept_example_shard1", shard1);
  }

  for (const auto& e : tools::quant_examples()) put(root / "examples" / "quant" / e.name, e.bytes);
  for (const auto& [name, bytes] : tools::marker_seeds()) put(root / "marker_fuzzer" / name, bytes);
  for (const auto& [name, bytes] : tools::checkpoint_seeds()) put(root / "checkpoint_fuzzer" / name, bytes);
  for (const auto& [name, bytes] : valid) put(root / "checkpoint_fuzzer" / ("example_" + name), bytes);
  for (const auto& [name, bytes] : linear_seeds()) put(root / "linear_fuzzer" / name, bytes);
  for (const auto& [name, bytes] : tools::roundtrip_seeds()) put(root / "roundtrip_fuzzer" / name, bytes);
  for (const auto& [name, bytes] : tools::index_seeds()) put(root / "index_fuzzer" / name, bytes);
  for (const auto& [name, bytes] : tools::npy_seeds()) put(root / "npy_fuzzer" / name, bytes);
  return 0;
}
