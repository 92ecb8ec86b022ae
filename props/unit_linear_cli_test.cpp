// The numeric commands on the command line: `safespec linear`
// reproduces the committed golden vectors (corpus/vectors) bit for bit,
// --dump writes every intermediate, `dequant` writes F32 [N, K], and
// `compare` reports per tensor with exit status 0 / 1 / 2.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "props/catch.hpp"
#include "props/unit_support.hpp"
#include "src/commands/compare.hpp"
#include "src/parse/layer_io.hpp"
#include "src/parse/load.hpp"
#include "src/io/writer.hpp"

using namespace safespec;
using test::Run;
namespace fs = std::filesystem;

namespace {

struct Scratch : test::TempDir {
  Scratch() : TempDir("safespec_linear_cli") {}
  std::string path(const std::string& name) const { return (dir / name).string(); }
  std::string file(const std::string& name, const std::vector<TensorView>& tensors) const {
    auto bytes = serialize(tensors, std::nullopt);
    REQUIRE(bytes.ok());
    std::ofstream(dir / name, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.value().data()), static_cast<std::streamsize>(bytes.value().size()));
    return path(name);
  }
  Run run(const std::string& args) const { return test::run_cli(dir.string(), args); }
};

std::string q(const std::string& p) { return "'" + p + "'"; }
std::string q(const fs::path& p) { return q(p.string()); }

// The one tensor of a file written by the command: name, dtype, shape.
TensorEntry only_tensor(const std::string& path) {
  HeaderParser parser;
  auto loaded = load_model(path, parser);
  REQUIRE(loaded.ok());
  REQUIRE(loaded.value().ok());
  const Header& h = loaded.value().value().header;
  REQUIRE(h.tensors.size() == 1);
  return h.tensors[0];
}

std::vector<std::uint8_t> f32(std::initializer_list<float> v) {
  std::vector<std::uint8_t> out;
  for (float x : v)
    for (int s = 0; s < 32; s += 8) out.push_back(static_cast<std::uint8_t>(std::bit_cast<std::uint32_t>(x) >> s));
  return out;
}

const fs::path kCorrection = test::vectors_dir() / "g4_c256_bf16_correction";  // cuda and eager differ here (D2)
const fs::path kSmallC = test::vectors_dir() / "g8_c16_bf16_codebook";         // C = 16: eager only

}  // namespace

TEST_CASE("linear (issue 4, golden vectors): every committed y is reproduced bit for bit in its semantics", "[cli]") {
  Scratch s;
  REQUIRE(fs::exists(test::vectors_dir() / "index.txt"));
  int checked = 0;
  for (const auto& entry : fs::directory_iterator(test::vectors_dir())) {
    if (!entry.is_directory()) continue;
    for (const std::string sem : {"eager", "cuda"}) {
      const fs::path expected = entry.path() / ("y_" + sem + ".safetensors");
      if (!fs::exists(expected)) continue;
      INFO(expected.string());
      const std::string y = s.path("y.safetensors");
      const Run lin = s.run("linear " + q(entry.path() / "layer.safetensors") + " --layer lin --input " +
                            q(entry.path() / "x.safetensors") + " --out " + q(y) + " --semantics " + sem);
      REQUIRE(lin.code == 0);
      CHECK(lin.err.empty());
      const Run cmp = s.run("compare " + q(expected) + " " + q(y));
      CHECK(cmp.code == 0);
      CHECK(cmp.out.ends_with("\ncompare: 1 tensor, all within 0 ulps\n"));
      ++checked;
    }
  }
  // every vector's eager output (18 W4A8, 9 W6A8, 6 svdquant_w4a4), and cuda
  // for the 8 + 3 W4A8 and W6A8 ones with C = 256
  CHECK(checked == 33 + 11);
}

TEST_CASE("linear --dump (issue 4): every intermediate of the cuda path, and the eager correction path's", "[cli]") {
  Scratch s;
  const std::string layer = q(kCorrection / "layer.safetensors"), x = q(kCorrection / "x.safetensors");
  const Run cuda = s.run("linear " + layer + " --layer lin --input " + x + " --input-tensor x --out " +
                         q(s.path("y.safetensors")) + " --dump " + q(s.path("cuda")));
  REQUIRE(cuda.code == 0);
  struct Want {
    const char* name;
    Dtype dtype;
    std::vector<std::uint64_t> shape;
  };
  const std::uint64_t M = 3, N = 8, K = 256;
  for (const Want& w : std::vector<Want>{{"wq", Dtype::I8, {N, K}},
                                         {"rotated", Dtype::F32, {M, K}},
                                         {"amax", Dtype::F32, {M}},
                                         {"xs", Dtype::F32, {M}},
                                         {"divisor", Dtype::F32, {M}},
                                         {"xq", Dtype::I8, {M, K}},
                                         {"acc", Dtype::I32, {M, N}},
                                         {"y_epilogue", Dtype::BF16, {M, N}},
                                         {"y", Dtype::BF16, {M, N}},
                                         {"y_ideal", Dtype::F64, {M, N}}}) {
    INFO(w.name);
    const TensorEntry t = only_tensor(s.path("cuda/" + std::string(w.name) + ".safetensors"));
    CHECK(t.name == w.name);
    CHECK(t.dtype == w.dtype);
    CHECK(t.shape == w.shape);
  }
  CHECK(s.run("compare " + q(kCorrection / "y_cuda.safetensors") + " " + q(s.path("cuda/y.safetensors"))).code == 0);

  // eager.C1-eager.C4: no activation quantization, so no xq, xs or acc.
  REQUIRE(s.run("linear " + layer + " --layer lin --input " + x + " --out " + q(s.path("y2.safetensors")) +
                " --semantics eager --dump " + q(s.path("eager")))
              .code == 0);
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(s.path("eager"))) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  CHECK(names == std::vector<std::string>{"w_dequant.safetensors", "wq.safetensors", "y.safetensors",
                                          "y_ideal.safetensors"});
  CHECK(only_tensor(s.path("eager/w_dequant.safetensors")).dtype == Dtype::BF16);
}

TEST_CASE("linear (issue 4, bad input): wrong layer, shapes, semantics and formats", "[cli]") {
  Scratch s;
  const std::string layer = q(kSmallC / "layer.safetensors"), x = q(kSmallC / "x.safetensors");
  const std::string out = " --out " + q(s.path("y.safetensors"));

  Run r = s.run("linear " + layer + " --layer nope --input " + x + out);
  CHECK(r.code == 2);
  CHECK(r.err.find("no marked layer 'nope' (marked layers: 'lin')") != std::string::npos);

  // K-CUDA (K7): the CUDA kernel has only C = 256; the finding refuses the layer.
  r = s.run("linear " + layer + " --layer lin --input " + x + out + " --semantics cuda");
  CHECK(r.code == 1);
  CHECK(r.err.find("CQ-W4A8-CUDA-GROUPSIZE") != std::string::npos);

  // x [3, 256] against a layer with K = 64: both shapes named.
  r = s.run("linear " + layer + " --layer lin --input " + q(kCorrection / "x.safetensors") + out + " --semantics eager");
  CHECK(r.code == 2);
  CHECK(r.err.find("has shape [3, 256], layer 'lin' expects [M, 64] (its weight is [N, K] = [8, 64])") !=
        std::string::npos);

  r = s.run("linear " + layer + " --layer lin --input " + x + " --input-tensor y" + out + " --semantics eager");
  CHECK(r.code == 2);
  CHECK(r.err.find("no tensor 'y'") != std::string::npos);

  CHECK(s.run("linear " + layer + " --layer lin --input " + x + out + " --semantics fast").code == 2);
  CHECK(s.run("linear " + layer + " --layer lin --input " + x).code == 2);  // --out is required

  // float8_e4m3fn: dequant works, linear is not there yet.
  const std::string marker = R"({"format": "float8_e4m3fn"})";
  const std::vector<std::uint8_t> mb(marker.begin(), marker.end()), codes(2 * 16, 0x38), scale = f32({0.5f});
  const auto fp8 = s.file("fp8.safetensors", {{"p.comfy_quant", Dtype::U8, {mb.size()}, mb},
                                              {"p.weight", Dtype::F8_E4M3, {2, 16}, codes},
                                              {"p.weight_scale", Dtype::F32, {}, scale}});
  r = s.run("linear " + q(fp8) + " --layer p --input " + x + out);
  CHECK(r.code == 2);
  CHECK(r.err.find("not supported yet") != std::string::npos);
  REQUIRE(s.run("dequant " + q(fp8) + " --layer p --out " + q(s.path("w8.safetensors"))).code == 0);
  const TensorEntry w8 = only_tensor(s.path("w8.safetensors"));
  CHECK(w8.dtype == Dtype::F32);
  CHECK(w8.shape == std::vector<std::uint64_t>{2, 16});
}

TEST_CASE("dequant (issue 4, §5.10): the W4A8 weight as F32 [N, K] in the original basis", "[cli]") {
  Scratch s;
  for (const fs::path& v : {kCorrection, kSmallC}) {
    const std::string out = s.path("w.safetensors");
    REQUIRE(s.run("dequant " + q(v / "layer.safetensors") + " --layer lin --out " + q(out)).code == 0);
    const TensorEntry t = only_tensor(out);
    CHECK(t.name == "weight");
    CHECK(t.dtype == Dtype::F32);
    CHECK(t.shape == std::vector<std::uint64_t>{8, v == kCorrection ? 256u : 64u});
  }
  CHECK(s.run("dequant " + q(kSmallC / "layer.safetensors") + " --layer other --out " + q(s.path("w.safetensors")))
            .code == 2);
}

// W4A8 `dequant` to safetensors is written 4 MiB of rows at a
// time; the .npy output is the whole matrix at once (dequant_as). A layer of
// K = 16 and 66,000 rows spans two blocks (65,536 rows each); both files
// carry the same F32 bytes.
TEST_CASE("dequant (issue 13): W4A8 streamed in row blocks is the whole matrix's bytes", "[cli]") {
  Scratch s;
  REQUIRE(s.run("vectors --m 1 --n 66000 --k 16 --group-size 16 --convrot-groupsize 16 --dtype bf16 --seed 3 " +
                q(s.path("v")))
              .code == 0);
  const std::string layer = q(s.path("v/layer.safetensors"));
  REQUIRE(s.run("dequant " + layer + " --layer lin --out " + q(s.path("w.safetensors"))).code == 0);
  REQUIRE(s.run("dequant " + layer + " --layer lin --out " + q(s.path("w.npy"))).code == 0);
  const auto bytes = [&](const std::string& name) {
    std::ifstream in(s.dir / name, std::ios::binary);
    return std::vector<std::uint8_t>(std::istreambuf_iterator<char>(in), {});
  };
  const std::vector<std::uint8_t> st = bytes("w.safetensors"), npy = bytes("w.npy");
  const std::size_t data = std::size_t{66000} * 16 * 4;
  REQUIRE(st.size() > data);
  REQUIRE(npy.size() > data);
  CHECK(only_tensor(s.path("w.safetensors")).shape == std::vector<std::uint64_t>{66000, 16});
  CHECK(std::equal(st.end() - static_cast<std::ptrdiff_t>(data), st.end(), npy.end() - static_cast<std::ptrdiff_t>(data)));
  CHECK(std::any_of(st.end() - static_cast<std::ptrdiff_t>(data), st.end(), [](std::uint8_t b) { return b != 0; }));
}

TEST_CASE("compare (issue 4): report format and exit status 0 / 1 / 2", "[cli]") {
  Scratch s;
  const float two_up = std::nextafter(2.0f, 4.0f);
  const auto a = s.file("a.safetensors", {{"t", Dtype::F32, {2}, f32({1.0f, 2.0f})}});
  const auto b = s.file("b.safetensors", {{"t", Dtype::F32, {2}, f32({1.0f, two_up})}});

  Run r = s.run("compare " + q(a) + " " + q(a));
  CHECK(r.code == 0);
  CHECK(r.out == "t: F32 [2]: 2/2 bit-exact, max 0 ulps, max abs err 0, max rel err 0: ok\n"
                 "compare: 1 tensor, all within 0 ulps\n");

  r = s.run("compare " + q(a) + " " + q(b));
  CHECK(r.code == 1);
  CHECK(r.out == "t: F32 [2]: 1/2 bit-exact, max 1 ulps, max abs err 2.38418579e-07, max rel err 1.1920929e-07: FAIL\n"
                 "  ulps 0: 1, 1: 1, 2-3: 0, 4-15: 0, 16+: 0; 1/2 beyond the tolerance; first difference at [1]: "
                 "expected 2 (0x40000000), got 2.00000024 (0x40000001)\n"
                 "compare: 1 tensor, 1 beyond 0 ulps\n");
  r = s.run("compare " + q(a) + " " + q(b) + " --ulps 1");
  CHECK(r.code == 0);
  CHECK(r.out.ends_with("; 0/2 beyond the tolerance; first difference at [1]: expected 2 (0x40000000), got 2.00000024 "
                        "(0x40000001)\ncompare: 1 tensor, all within 1 ulps\n"));

  // Tensors that cannot be compared element by element fail whatever the tolerance.
  const auto c = s.file("c.safetensors", {{"t", Dtype::F16, {2}, std::vector<std::uint8_t>(4, 0)},
                                          {"u", Dtype::F32, {1}, f32({0.0f})}});
  r = s.run("compare " + q(a) + " " + q(c) + " --ulps 1000");
  CHECK(r.code == 1);
  CHECK(r.out == "t: dtype F32 in EXPECTED, F16 in ACTUAL: FAIL\nu: only in ACTUAL: FAIL\n"
                 "compare: 2 tensors, 2 beyond 1000 ulps\n");
  const auto d = s.file("d.safetensors", {{"t", Dtype::F32, {1, 2}, f32({1.0f, 2.0f})}});
  CHECK(s.run("compare " + q(a) + " " + q(d)).out.starts_with("t: shape [2] in EXPECTED, [1, 2] in ACTUAL: FAIL\n"));

  // The correction vector: cuda quantizes activations, eager does not (D2).
  r = s.run("compare " + q(kCorrection / "y_eager.safetensors") + " " + q(kCorrection / "y_cuda.safetensors"));
  CHECK(r.code == 1);
  CHECK(r.out.starts_with("y: BF16 [3, 8]: "));

  r = s.run("compare " + q(a) + " " + q(s.path("missing.safetensors")));
  CHECK(r.code == 2);
  CHECK(r.err.find("missing.safetensors: cannot open") != std::string::npos);
  CHECK(s.run("compare " + q(a)).code == 2);
  CHECK(s.run("compare " + q(a) + " " + q(b) + " --ulps x").code == 2);
}

TEST_CASE("compare (issue 4): element distances in each dtype", "[cli]") {
  auto bytes = [](std::uint64_t u, std::size_t n) {
    std::vector<std::uint8_t> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::uint8_t>(u >> (8 * i));
    return v;
  };
  // +0 and -0 are adjacent in value, 0 ulps apart; the smallest subnormals on
  // either side of 0 are 2 apart.
  CHECK(element_distance(Dtype::F32, bytes(0, 4), bytes(0x80000000u, 4)).ulps == 0u);
  CHECK(element_distance(Dtype::F32, bytes(1, 4), bytes(0x80000001u, 4)).ulps == 2u);
  CHECK(element_distance(Dtype::BF16, bytes(0x3F80, 2), bytes(0x3F81, 2)).ulps == 1u);
  CHECK(element_distance(Dtype::F16, bytes(0x7C00, 2), bytes(0xFC00, 2)).ulps == 2u * 0x7C00u);
  // Two NaNs are 0 apart; a NaN and a number infinitely far.
  CHECK(element_distance(Dtype::F32, bytes(0x7FC00000u, 4), bytes(0xFFC00001u, 4)).ulps == 0u);
  const ElementDistance nan_one = element_distance(Dtype::F32, bytes(0x7FC00000u, 4), bytes(0x3F800000u, 4));
  CHECK_FALSE(nan_one.ulps.has_value());
  CHECK(std::isinf(nan_one.abs_err));
  CHECK(element_distance(Dtype::F8_E4M3, bytes(0x7F, 1), bytes(0xFF, 1)).ulps == 0u);  // E4M3FN's two NaNs
  CHECK(element_distance(Dtype::F64, bytes(0x7FEFFFFFFFFFFFFFull, 8), bytes(0xFFEFFFFFFFFFFFFFull, 8)).ulps ==
        2 * 0x7FEFFFFFFFFFFFFFull);
  // Integers: |a - b|, without overflow at the extremes.
  CHECK(element_distance(Dtype::I8, bytes(0x80, 1), bytes(0x7F, 1)).ulps == 255u);
  CHECK(element_distance(Dtype::I64, bytes(0x8000000000000000ull, 8), bytes(0x7FFFFFFFFFFFFFFFull, 8)).ulps ==
        std::numeric_limits<std::uint64_t>::max());
  CHECK(element_distance(Dtype::U16, bytes(0, 2), bytes(0xFFFF, 2)).ulps == 0xFFFFu);
  // Relative error against the expected value; infinite when it is 0.
  const ElementDistance from_zero = element_distance(Dtype::I32, bytes(0, 4), bytes(3, 4));
  CHECK(from_zero.abs_err == 3.0);
  CHECK(std::isinf(from_zero.rel_err));
  // No value order: equal bits or infinitely far.
  CHECK(element_distance(Dtype::F8_E8M0, bytes(5, 1), bytes(5, 1)).ulps == 0u);
  CHECK_FALSE(element_distance(Dtype::F8_E8M0, bytes(5, 1), bytes(6, 1)).ulps.has_value());
}

TEST_CASE("linear (issue 4, §7.1, §6.2): int8_tensorwise and convrot_w4a4 through spec/numerics/int_linear.hpp", "[cli]") {
  Scratch s;
  auto marker = [](const std::string& m) { return std::vector<std::uint8_t>(m.begin(), m.end()); };
  const auto m8 = marker(R"({"format": "int8_tensorwise"})");
  const auto int8 = s.file("int8.safetensors", {{"p.comfy_quant", Dtype::U8, {m8.size()}, m8},
                                                {"p.weight", Dtype::I8, {2, 16}, std::vector<std::uint8_t>(32, 1)},
                                                {"p.weight_scale", Dtype::F32, {}, f32({0.5f})}});
  const auto m4 = marker(R"({"format": "convrot_w4a4", "convrot_groupsize": 16})");
  const auto w4a4 = s.file("w4a4.safetensors", {{"p.comfy_quant", Dtype::U8, {m4.size()}, m4},
                                                {"p.weight", Dtype::I8, {2, 32}, std::vector<std::uint8_t>(64, 0x21)},
                                                {"p.weight_scale", Dtype::F32, {2}, f32({0.25f, 0.5f})}});
  std::vector<std::uint8_t> ones;
  for (int i = 0; i < 64; ++i) ones.insert(ones.end(), {0x80, 0x3F});  // BF16 1.0
  const auto x16 = s.file("x16.safetensors", {{"x", Dtype::BF16, {2, 16}, std::span(ones).first(64)}});
  const auto x64 = s.file("x64.safetensors", {{"x", Dtype::BF16, {1, 64}, ones}});
  for (const auto& [layer, x, m] : {std::tuple{int8, x16, 2u}, std::tuple{w4a4, x64, 1u}}) {
    const std::string y = s.path("y.safetensors");
    const Run r = s.run("linear " + q(layer) + " --layer p --input " + q(x) + " --out " + q(y) + " --semantics eager --dump " +
                        q(s.path("dump")));
    REQUIRE(r.code == 0);
    const TensorEntry t = only_tensor(y);
    CHECK(t.dtype == Dtype::BF16);
    CHECK(t.shape == std::vector<std::uint64_t>{m, 2});
    CHECK(fs::exists(s.path("dump/xq.safetensors")));
    REQUIRE(s.run("dequant " + q(layer) + " --layer p --out " + q(s.path("w.safetensors"))).code == 0);
    CHECK(only_tensor(s.path("w.safetensors")).shape == std::vector<std::uint64_t>{2, m == 2u ? 16u : 64u});
  }
}

TEST_CASE("linear (issue 4, bad input): hostile markers and companions never crash", "[cli]") {
  Scratch s;
  const fs::path v = test::vectors_dir() / "g8_c256_bf16_plain";
  const std::string x = q(v / "x.safetensors"), out = " --out " + q(s.path("y.safetensors"));
  std::vector<std::uint8_t> w(8 * 128, 0x98), srel(8 * 32, 0x38), sch = f32({1, 1, 1, 1, 1, 1, 1, 1});
  struct Case {
    std::string marker;
    std::vector<std::uint64_t> srel_shape;
    int code;
  };
  for (const Case& c : std::vector<Case>{
           {R"({"format": "asym_w4a8_int8", "group_size": 8, "convrot": true})", {8, 32}, 0},
           {R"({"format": "asym_w4a8_int8", "group_size": 1180591620717411303424, "convrot": true})", {8, 32}, 1},
           {R"({"format": "asym_w4a8_int8", "group_size": "x", "convrot": true})", {8, 32}, 1},
           {R"({"format": "asym_w4a8_int8", "group_size": 0, "convrot": true})", {8, 32}, 1},
           {R"({"format": "asym_w4a8_int8", "group_size": 8, "convrot_groupsize": 8, "convrot": true})", {8, 32}, 1},
           {R"({"format": "asym_w4a8_int8", "group_size": 8, "convrot": true})", {32, 8}, 1},
       }) {
    INFO(c.marker);
    const std::vector<std::uint8_t> m(c.marker.begin(), c.marker.end());
    const auto layer = s.file("l.safetensors", {{"lin.comfy_quant", Dtype::U8, {m.size()}, m},
                                                {"lin.weight", Dtype::I8, {8, 128}, w},
                                                {"lin.weight_s_rel", Dtype::F8_E4M3, c.srel_shape, srel},
                                                {"lin.weight_s_channel", Dtype::F32, {8}, sch}});
    for (const std::string sem : {"cuda", "eager"}) {
      const Run r = s.run("linear " + q(layer) + " --layer lin --input " + x + out + " --semantics " + sem);
      CHECK(r.code == c.code);
      if (c.code != 0) CHECK(r.err.starts_with("safespec: "));
    }
    CHECK(s.run("dequant " + q(layer) + " --layer lin --out " + q(s.path("w.safetensors"))).code == c.code);
  }
}
