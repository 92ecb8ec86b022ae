// `dequant --out *.npy` of a W4A8 layer writes its rows as they are made
// (src/commands/linear.cpp): the file must be, byte for byte, the .npy of
// the whole dequantized matrix (the format's dequant column, serialize_npy).
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "props/catch.hpp"
#include "props/unit_support.hpp"
#include "src/commands/format_numerics.hpp"
#include "src/commands/linear.hpp"
#include "src/commands/vectors.hpp"
#include "src/io/npy.hpp"

using namespace safespec;

namespace {

std::vector<std::uint8_t> streamed_npy_bytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

TEST_CASE("dequant: a W4A8 layer streamed to .npy is the whole matrix's .npy, bit for bit", "[dequant][npy]") {
  struct Shape {
    std::size_t n, k, group;
  };
  // One row block, several (a block is 4 MiB of rows: 2048 rows at K = 512),
  // and a last block cut short.
  const auto shape = GENERATE(Shape{3, 256, 16}, Shape{5000, 512, 128}, Shape{2049, 512, 64});
  test::TempDir tmp("dequant_npy");
  VectorSpec s;
  s.m = 1, s.n = shape.n, s.k = shape.k, s.group_size = shape.group, s.seed = 7;
  REQUIRE(write_vector(tmp.dir, s).ok());
  const std::string layer = (tmp.dir / "layer.safetensors").string();
  const std::filesystem::path out = tmp.dir / "w.npy";
  const CommandOutcome o = run_dequant(DequantRequest{layer, "lin", out.string()});
  REQUIRE(o.exit_code == kExitOk);

  auto c = CheckpointReader::open(layer);
  REQUIRE(c.ok());
  auto l = c.value()->layer("lin");
  REQUIRE(l.ok());
  const FormatNumerics* n = find_numerics(l.value()->format);
  REQUIRE(n != nullptr);
  auto w = n->dequant(*c.value(), *l.value(), DequantOptions{});
  REQUIRE(w.ok());
  const deq::Mat<float>& m = w.value();
  CHECK(m.rows == shape.n);
  CHECK(m.cols == shape.k);
  NpyArray whole{NpyType::F32, {m.rows, m.cols}, {}};
  whole.data.resize(m.v.size() * 4);
  std::memcpy(whole.data.data(), m.v.data(), whole.data.size());  // little-endian hosts: the file's order
  auto want = serialize_npy(whole);
  REQUIRE(want.ok());
  const std::vector<std::uint8_t> got = streamed_npy_bytes(out);
  CHECK(got.size() == want.value().size());
  CHECK(got == want.value());
  // And the header alone is what serialize_npy puts before the data.
  auto header = npy_header(NpyType::F32, {m.rows, m.cols});
  REQUIRE(header.ok());
  CHECK(std::equal(header.value().begin(), header.value().end(), want.value().begin()));
}
