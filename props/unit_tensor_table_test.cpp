// The quantized rules' name table and the lookups built on it: what the
// faster table and the per-layer lookups must still answer exactly.
#include <catch2/catch.hpp>

#include <string>

#include "props/quant_support.hpp"
#include "spec/name_hash.hpp"
#include "spec/quant/analyze.hpp"
#include "spec/quant/layer.hpp"
#include "spec/quant/tensor_table.hpp"

using namespace safespec;

namespace {

std::vector<quant::CheckpointFile> two_files(const test::QuantFixture& a, const test::QuantFixture& b) {
  auto files = a.files();
  auto more = b.files();
  files.push_back(more.front());
  return files;
}

}  // namespace

TEST_CASE("TensorTable: a name in two files keeps its first place and the last file's entry", "[tensor-table]") {
  test::QuantFixture a, b;
  a.tensor("x.weight", Dtype::I8, {4, 4}).tensor("shared", Dtype::F32, {1}).tensor("y", Dtype::BF16, {2});
  b.tensor("shared", Dtype::F16, {3}).tensor("z", Dtype::U8, {5});
  const auto files = two_files(a, b);
  const quant::TensorTable table(files);
  REQUIRE(table.names() == std::vector<std::string_view>{"x.weight", "shared", "y", "z"});
  const quant::TensorRef* shared = table.find("shared");
  REQUIRE(shared);
  CHECK(shared->file == 1);
  CHECK(shared->entry->dtype == Dtype::F16);
  CHECK(table.find("x.weight")->file == 0);
  CHECK(table.find("missing") == nullptr);
  CHECK(table.find("") == nullptr);
  for (std::size_t k = 0; k < table.names().size(); ++k) CHECK(&table.named(k) == table.find(table.names()[k]));
}

TEST_CASE("TensorTable: the parse's kept hashes give the same table as hashing the names again", "[tensor-table]") {
  test::QuantFixture a, b;
  for (int i = 0; i < 40; ++i) a.tensor("t." + std::to_string(i), Dtype::F32, {1});
  for (int i = 30; i < 50; ++i) b.tensor("t." + std::to_string(i), Dtype::I8, {1});
  for (const auto* fx : {&a, &b})
    for (const TensorEntry& t : fx->model.header.tensors)
      const_cast<test::QuantFixture*>(fx)->model.header.name_hashes.values.push_back(name_hash(t.name));
  const auto files = two_files(a, b);
  const quant::TensorTable table(files);
  CHECK(table.names().size() == 50);
  for (int i = 0; i < 50; ++i) {
    const quant::TensorRef* r = table.find("t." + std::to_string(i));
    REQUIRE(r);
    CHECK(r->file == (i >= 30 ? 1u : 0u));
  }
}

TEST_CASE("LayerCheck: a companion asked for by a temporary name is looked up, not taken from a stale view",
          "[tensor-table]") {
  test::QuantFixture fx;
  fx.tensor("p.weight", Dtype::I8, {4, 4}).tensor("p.weight_smooth_factor", Dtype::F32, {4});
  const auto files = fx.files();
  const quant::TensorTable table(files);
  const auto l = test::make_layer("p", R"({"format": "svdquant_w4a4"})");
  quant::Sink sink;
  const quant::LayerCheck c{l.layer, table, sink, quant::format_spec(quant::QuantFormat::Svdquant)};
  for (const char* suffix : {"weight_smooth_factor", "smooth_factor", "weight", "a_suffix_longer_than_thirty_two_chars"}) {
    const std::string temporary(suffix);
    const quant::TensorRef* first = c.tensor(temporary);
    CHECK(c.tensor(std::string(suffix)) == first);
    CHECK(first == table.find("p." + temporary));
  }
  CHECK(c.tensor("weight_smooth_factor") != nullptr);
  CHECK(c.tensor("smooth_factor") == nullptr);
}

TEST_CASE("analyze: layers that repeat one marker text each get their own findings", "[tensor-table]") {
  test::Marked m;
  for (const char* p : {"a", "b", "c"}) {
    m.fx.tensor(std::string(p) + ".weight", Dtype::I8, {4, 64}).tensor(std::string(p) + ".weight_scale", Dtype::F32, {4, 1});
    m.marker(p, R"({"format": "int8_tensorwise"})");
  }
  const quant::Analysis a = m.run();
  std::vector<std::string> convrot;
  for (const auto& lf : a.findings)
    if (lf.finding.rule == RuleId::QuantInt8Convrot) convrot.push_back(lf.finding.where.text());
  CHECK(convrot == std::vector<std::string>{"layer 'a'", "layer 'b'", "layer 'c'"});
}
