// Sharded checkpoints: a model.safetensors.index.json with its shards in a
// folder of their own. The manifest line names the index; the shards are
// written beside it without lines of their own. The index rules (ST-INDEX-*)
// are safespec's (the reference never reads an index, docs/cli.md).
#include <algorithm>
#include <map>

#include "conformance/suite_quant_support.hpp"
#include "gen/models.hpp"
#include "spec/dtype.hpp"
#include "src/io/writer.hpp"

namespace safespec::conformance::detail {

namespace {

namespace q = gen::quant;
using enum RuleId;

struct T {
  std::string name;
  Dtype dtype;
  std::vector<std::uint64_t> shape;
};

Bytes shard(const std::vector<T>& tensors) {
  std::vector<Bytes> datas;
  std::vector<TensorView> views;
  for (const T& t : tensors) datas.push_back(zeros(gen::byte_size(t.dtype, t.shape)));
  for (std::size_t i = 0; i < tensors.size(); ++i)
    views.push_back(TensorView{tensors[i].name, tensors[i].dtype, tensors[i].shape, datas[i]});
  auto bytes = serialize(views, Metadata{{"format", "pt"}});
  return bytes ? std::move(bytes).value() : Bytes{};
}

std::string index_text(const std::string& metadata, const std::vector<std::pair<std::string, std::string>>& map) {
  std::string s = "{\n" + (metadata.empty() ? std::string() : "  \"metadata\": " + metadata + ",\n") + "  \"weight_map\": {";
  for (std::size_t i = 0; i < map.size(); ++i)
    s += std::string(i ? "," : "") + "\n    \"" + map[i].first + "\": \"" + map[i].second + "\"";
  return s + "\n  }\n}\n";
}

Bytes text_bytes(const std::string& s) { return Bytes(s.begin(), s.end()); }

const char* kS1 = "model-00001-of-00002.safetensors";
const char* kS2 = "model-00002-of-00002.safetensors";

// Shard 1: a F32 [2] (8 bytes), b U8 [3] (3); shard 2: c BF16 [4] (8). 19 bytes.
std::vector<std::pair<std::string, Bytes>> two_shards() {
  return {{kS1, shard({{"a", Dtype::F32, {2}}, {"b", Dtype::U8, {3}}})}, {kS2, shard({{"c", Dtype::BF16, {4}}})}};
}

const std::vector<std::pair<std::string, std::string>> kMap{{"a", kS1}, {"b", kS1}, {"c", kS2}};

void add(std::vector<Draft>& out, const std::string& folder, std::string description, const std::string& index,
         std::vector<std::pair<std::string, Bytes>> beside, std::vector<RuleId> rules) {
  out.push_back(Draft{folder + "/model.safetensors.index.json", std::move(description), text_bytes(index), std::move(beside),
                      std::move(rules), {}});
}

}  // namespace

std::vector<Draft> index_drafts() {
  std::vector<Draft> out;
  add(out, "accept_index_two_shards", "a shard index and two shards that agree with it (total_size 19)",
      index_text("{\"total_size\": 19}", kMap), two_shards(), {});
  add(out, "accept_index_without_total_size", "a shard index without metadata: total_size is optional",
      index_text("", kMap), two_shards(), {});
  add(out, "reject_ST-INDEX-JSON_not_object", "the index is a JSON array", "[]\n", two_shards(), {IndexJson});
  add(out, "reject_ST-INDEX-JSON_not_json", "the index is not JSON", "{\"weight_map\": \n", two_shards(), {IndexJson});
  add(out, "reject_ST-INDEX-JSON_no_weight_map", "the index has no weight_map", "{\"metadata\": {\"total_size\": 19}}\n",
      two_shards(), {IndexJson});
  add(out, "reject_ST-INDEX-JSON_shard_not_string", "a weight_map value that is a number",
      "{\"weight_map\": {\"a\": 1}}\n", two_shards(), {IndexJson});
  add(out, "reject_ST-INDEX-JSON_tensor_listed_twice", "the tensor a listed twice in weight_map",
      index_text("", {{"a", kS1}, {"a", kS1}, {"b", kS1}, {"c", kS2}}), two_shards(), {IndexJson});
  add(out, "reject_ST-INDEX-JSON_shard_path_escapes", "a shard named ../model-00002-of-00002.safetensors: shards are plain "
      "file names beside the index", index_text("", {{"a", kS1}, {"b", kS1}, {"c", std::string("../") + kS2}}), two_shards(),
      {IndexJson});
  add(out, "reject_ST-INDEX-JSON_total_size_string", "metadata.total_size is a string",
      index_text("{\"total_size\": \"19\"}", kMap), two_shards(), {IndexJson});
  add(out, "reject_ST-INDEX-SHARD-MISSING_third_shard", "weight_map names a shard that does not exist",
      index_text("", {{"a", kS1}, {"b", kS1}, {"c", kS2}, {"d", "model-00003-of-00003.safetensors"}}), two_shards(),
      {IndexShardMissing});
  add(out, "reject_ST-INDEX-TENSOR-MISSING_not_in_shard", "weight_map puts c in the first shard, which lacks it",
      index_text("", {{"a", kS1}, {"b", kS1}, {"c", kS2}, {"d", kS1}}), two_shards(), {IndexTensorMissing});
  add(out, "reject_ST-INDEX-TENSOR-UNLISTED_b", "the first shard holds b, which weight_map does not list",
      index_text("", {{"a", kS1}, {"c", kS2}}), two_shards(), {IndexTensorUnlisted});
  add(out, "reject_ST-INDEX-TENSOR-IN-TWO-SHARDS_a", "both shards hold a tensor a",
      index_text("", kMap),
      {{kS1, shard({{"a", Dtype::F32, {2}}, {"b", Dtype::U8, {3}}})},
       {kS2, shard({{"a", Dtype::F32, {2}}, {"c", Dtype::BF16, {4}}})}},
      {IndexTensorInTwoShards});
  add(out, "reject_ST-INDEX-TOTAL-SIZE_off_by_one", "metadata.total_size 20, the shards hold 19 bytes of tensors",
      index_text("{\"total_size\": 20}", kMap), two_shards(), {IndexTotalSize});
  {
    auto shards = two_shards();
    // A gap of two bytes in shard 2: its data starts at 2 (F8).
    Bytes& s2 = shards[1].second;
    const std::string h = "{\"c\":{\"dtype\":\"BF16\",\"shape\":[4],\"data_offsets\":[2,10]}}";
    s2 = with_header(h + std::string((8 - h.size() % 8) % 8, ' '), zeros(10));
    add(out, "reject_ST-OFFSET-GAP_in_second_shard", "a consistent index whose second shard has a gap before its tensor",
        index_text("{\"total_size\": 19}", kMap), std::move(shards), {OffsetGap});
  }
  // A quantized checkpoint over two shards: markers and layers spread as
  // sglang and ComfyUI read them, as one model (docs/cli.md, "One checkpoint,
  // several files").
  for (std::uint64_t attempt = 0; attempt < 200; ++attempt) {
    q::QCheckpoint c = sample(q::valid_checkpoint(), key_of("index-quant", 0, 0, attempt), 100);
    if (c.files.size() != 2) continue;
    fill_valid_data(c);
    std::vector<std::pair<std::string, Bytes>> files;
    std::vector<std::pair<std::string, std::string>> map;
    std::uint64_t total = 0;
    std::size_t size = 0;
    for (std::size_t f = 0; f < 2; ++f) {
      auto bytes = q::serialize_file(c, f);
      if (!bytes) break;
      size += bytes.value().size();
      files.emplace_back(c.files[f].name, std::move(bytes).value());
      for (const q::QTensor& t : q::file_tensors(c, f)) {
        map.emplace_back(t.name, c.files[f].name);
        total += gen::byte_size(t.dtype, t.shape);
      }
    }
    if (files.size() != 2 || size > 12288 || !strict_rules(files).empty()) continue;
    std::sort(map.begin(), map.end());
    bool plain = true;  // names go into the index unescaped
    for (const auto& [name, file] : map)
      for (char ch : name) plain = plain && ch != '"' && ch != '\\' && static_cast<unsigned char>(ch) >= 0x20;
    if (!plain) continue;
    add(out, "accept_index_quantized_two_shards", "a valid quantized checkpoint over two shards, read as one model",
        index_text("{\"total_size\": " + std::to_string(total) + "}", map), std::move(files), {});
    break;
  }
  return out;
}

}  // namespace safespec::conformance::detail
