#include "tools/fuzz_seeds.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>

namespace safespec::tools {

namespace {

std::vector<std::uint8_t> pseudo_random(std::size_t n, std::uint32_t state) {
  std::vector<std::uint8_t> out;
  for (std::size_t i = 0; i < n; ++i) {
    state = state * 1664525u + 1013904223u;  // the LCG of the linear_fuzzer seeds
    out.push_back(static_cast<std::uint8_t>(state >> 24));
  }
  return out;
}

NamedFile text(std::string name, std::string_view t) { return {std::move(name), {t.begin(), t.end()}}; }

}  // namespace

std::vector<NamedFile> roundtrip_seeds() {
  std::vector<NamedFile> out;
  std::uint32_t seed = 0x5AFE0001u;
  for (std::size_t n : {16, 64, 256, 1024, 4096, 16384}) out.emplace_back("random_" + std::to_string(n), pseudo_random(n, seed++));
  out.emplace_back("zeros_256", std::vector<std::uint8_t>(256, 0));
  out.emplace_back("ones_256", std::vector<std::uint8_t>(256, 0xff));
  return out;
}

std::vector<NamedFile> index_seeds() {
  return {
      text("accept_transformers",
           "{\n  \"metadata\": {\n    \"total_size\": 112\n  },\n  \"weight_map\": {\n"
           "    \"model.layers.0.bias\": \"model-00001-of-00002.safetensors\",\n"
           "    \"model.layers.0.weight\": \"model-00001-of-00002.safetensors\",\n"
           "    \"model.layers.1.weight\": \"model-00002-of-00002.safetensors\"\n  }\n}\n"),
      text("accept_no_metadata", "{\"weight_map\":{\"a\":\"model.safetensors\"}}"),
      text("accept_empty_weight_map", "{\"metadata\":{\"total_size\":0},\"weight_map\":{}}"),
      text("accept_escapes", "{\"weight_map\":{\"\\u0000\\ud83d\\ude00\":\"s\\u00e9.safetensors\",\"b\\\"\":\"x\"}}"),
      text("accept_metadata_not_object", "{\"metadata\":[1],\"weight_map\":{\"blk.0.comfy_quant\":\"q.safetensors\"}}"),
      text("accept_max_total", "{\"metadata\":{\"total_size\":18446744073709551615},\"weight_map\":{\"a\":\"b\"}}"),
      text("reject_not_json", "{\"weight_map\":"),
      text("reject_top_array", "[{\"weight_map\":{}}]"),
      text("reject_no_weight_map", "{\"metadata\":{\"total_size\":1}}"),
      text("reject_shard_not_string", "{\"weight_map\":{\"a\":1}}"),
      text("reject_duplicate_tensor", "{\"weight_map\":{\"a\":\"x\",\"\\u0061\":\"y\"}}"),
      text("reject_shard_path", "{\"weight_map\":{\"a\":\"../model.safetensors\"}}"),
      text("reject_shard_dot", "{\"weight_map\":{\"a\":\".\"}}"),
      text("reject_shard_nul", "{\"weight_map\":{\"a\":\"m\\u0000\"}}"),
      text("reject_total_negative", "{\"metadata\":{\"total_size\":-1},\"weight_map\":{}}"),
      text("reject_total_too_large", "{\"metadata\":{\"total_size\":18446744073709551616},\"weight_map\":{}}"),
      text("reject_invalid_utf8", "{\"weight_map\":{\"\xed\xa0\x80\":\"x\"}}"),
  };
}

std::vector<NamedFile> npy_seeds() {
  // Sized once and filled in place: g++-12 -O3 reports bytes appended to the
  // 8-byte magic as a write past it (-Wstringop-overflow, a false positive
  // inside libstdc++), which broke Release builds of the tools.
  const auto npy = [](std::uint8_t major, std::string_view dict, std::size_t data_bytes) {
    const std::size_t len_bytes = major == 1 ? 2 : 4, data_at = 8 + len_bytes + dict.size();
    std::vector<std::uint8_t> out(data_at + data_bytes);
    const std::uint8_t magic[] = {0x93, 'N', 'U', 'M', 'P', 'Y', major, 0};
    std::copy(std::begin(magic), std::end(magic), out.begin());
    for (std::size_t b = 0; b < len_bytes; ++b) out[8 + b] = static_cast<std::uint8_t>(dict.size() >> (8 * b));
    std::copy(dict.begin(), dict.end(), out.begin() + static_cast<std::ptrdiff_t>(8 + len_bytes));
    for (std::size_t i = 0; i < data_bytes; ++i) out[data_at + i] = static_cast<std::uint8_t>(i * 37);
    return out;
  };
  const auto padded = [](std::string dict) {
    dict.append(117 - dict.size(), ' ');  // 10 + 118 = 128: numpy's alignment
    return dict + "\n";
  };
  std::vector<NamedFile> out;
  out.emplace_back("f4_2x3_v1", npy(1, padded("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"), 24));
  out.emplace_back("u2_4_v2", npy(2, "{\"shape\": (4,), \"descr\": \"<u2\", \"fortran_order\": False}\n", 8));
  out.emplace_back("refused_fortran", npy(1, padded("{'descr': '<f2', 'fortran_order': True, 'shape': (2, 2), }"), 8));
  return out;
}

}  // namespace safespec::tools
