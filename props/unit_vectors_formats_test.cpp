// The golden vectors beyond 4-bit W4A8: the W6A8 ones store a 6-bit layer
// (CheckpointReader::six_bit, which picks the 6-bit decoding), and the
// svdquant_w4a4 ones hold one layer in two layouts with one y. `safespec
// vectors --format svdquant_w4a4` writes a golden vector's bytes for its
// shapes and seed, conformance numeric replays it, and options of the other
// format are usage errors.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "props/catch.hpp"
#include "props/unit_support.hpp"
#include "src/parse/layer_io.hpp"

using namespace safespec;
using test::Run;
namespace fs = std::filesystem;

namespace {

std::vector<char> formats_file_chars(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Whether the golden vector NAME's layer "lin" is 6-bit to the reader.
bool golden_six_bit(const std::string& name) {
  auto r = CheckpointReader::open((test::vectors_dir() / name / "layer.safetensors").string());
  REQUIRE(r.ok());
  auto l = r.value()->layer("lin");
  REQUIRE(l.ok());
  return r.value()->six_bit(*l.value());
}

std::string formats_at(const test::CliScratch& s, const std::string& name) { return (s.dir / name).string(); }

}  // namespace

TEST_CASE("golden vectors: the w6_ layers are 6-bit to the reader, the W4A8 ones are not", "[vectors]") {
  int six = 0;
  for (const auto& entry : fs::directory_iterator(test::vectors_dir())) {
    if (!entry.is_directory()) continue;
    const std::string name = entry.path().filename().string();
    if (name.starts_with("svd_")) continue;
    INFO(name);
    CHECK(golden_six_bit(name) == name.starts_with("w6_"));
    six += name.starts_with("w6_") ? 1 : 0;
  }
  CHECK(six == 9);
}

TEST_CASE("golden vectors: one svdquant_w4a4 layer stored natural and tile-packed gives one y", "[vectors]") {
  const fs::path natural = test::vectors_dir() / "svd_natural_n128_k128_r4_f16_bias";
  const fs::path tiled = test::vectors_dir() / "svd_tile_n128_k128_r4_f16_bias";
  CHECK(formats_file_chars(natural / "x.safetensors") == formats_file_chars(tiled / "x.safetensors"));
  CHECK(formats_file_chars(natural / "y_eager.safetensors") == formats_file_chars(tiled / "y_eager.safetensors"));
  // Not the same file twice: the weight's bytes sit in another order.
  CHECK(formats_file_chars(natural / "layer.safetensors") != formats_file_chars(tiled / "layer.safetensors"));
  for (const fs::path& v : {natural, tiled}) CHECK(!fs::exists(v / "y_cuda.safetensors"));

  // `linear` un-tiles the tile-packed layer on its own and lands on the
  // natural layer's y, bit for bit.
  const test::CliScratch s("safespec_vectors_formats");
  const std::string y = formats_at(s, "y.safetensors");
  const Run lin = s.run("linear " + test::shell_word((tiled / "layer.safetensors").string()) + " --layer lin --input " +
                        test::shell_word((tiled / "x.safetensors").string()) + " --out " + test::shell_word(y));
  REQUIRE(lin.code == 0);
  CHECK(formats_file_chars(y) == formats_file_chars(natural / "y_eager.safetensors"));
}

TEST_CASE("vectors --format svdquant_w4a4: a golden vector's bytes, replayed by conformance numeric", "[vectors]") {
  // svd_tile_n256_k64_r16_bf16_plain is make_vectors' seed 3004.
  const test::CliScratch s("safespec_vectors_formats");
  const std::string out = formats_at(s, "svd");
  Run r = s.run("vectors --format svdquant_w4a4 --layout tile --m 3 --n 256 --k 64 --rank 16 --dtype BF16 --seed 3004 " +
                test::shell_word(out));
  REQUIRE(r.code == 0);
  CHECK(r.err == "");
  CHECK(r.out == out + ": layer 'lin' svdquant_w4a4 N=256 K=64 R=16 tile-packed, x [3, 64] BF16, outputs: y_eager (F32; "
                       "no y_cuda: the reference has one semantics)\n");
  const fs::path golden = test::vectors_dir() / "svd_tile_n256_k64_r16_bf16_plain";
  for (const char* f : {"layer.safetensors", "x.safetensors", "y_eager.safetensors"}) {
    INFO(f);
    CHECK(formats_file_chars(s.dir / "svd" / f) == formats_file_chars(golden / f));
  }
  CHECK(!fs::exists(s.dir / "svd" / "y_cuda.safetensors"));
  const std::string linear = test::shell_word(test::cli_path()) +
                             " linear {checkpoint} --layer {layer} --input {input} --out {output} --semantics eager";
  r = s.run("conformance numeric --semantics eager --vectors " + test::shell_word(out) + " --impl " +
            test::shell_word(linear));
  INFO(r.err);
  CHECK(r.code == 0);
  CHECK(r.out == "svd: F32 [3, 256]: bit-exact: ok\nnumeric eager: 1 vector: 1 bit-exact, 0 within 1 ulp, 0 further "
                 "off, 0 without a usable output; tolerance 0 ulps: ok\n");
  // A natural layer under another name, with a bias, replays the same way.
  r = s.run("vectors --format svdquant_w4a4 --m 2 --n 5 --k 128 --rank 3 --bias --dtype F16 --layer blocks.0.fc " +
            test::shell_word(formats_at(s, "nat")));
  REQUIRE(r.code == 0);
  r = s.run("conformance numeric --semantics eager --vectors " + test::shell_word(formats_at(s, "nat")) + " --impl " +
            test::shell_word(linear));
  CHECK(r.code == 0);
  CHECK(r.out.starts_with("nat: F32 [2, 5]: bit-exact: ok\n"));
}

TEST_CASE("vectors --format svdquant_w4a4: shapes and options it cannot take are usage errors naming the option",
          "[vectors]") {
  const test::CliScratch s("safespec_vectors_formats");
  const auto err = [&](const std::string& args) {
    const Run r = s.run("vectors " + args + " " + test::shell_word(formats_at(s, "bad")));
    CHECK(r.code == 2);
    CHECK(r.out == "");
    CHECK(!fs::exists(s.dir / "bad"));
    return r.err;
  };
  const std::string svd = "--format svdquant_w4a4 --m 2 ";
  CHECK(err(svd + "--n 8 --k 96") ==
        "safespec vectors: --k: expected a multiple of 64 (svdquant_w4a4's scale group), found 96\n");
  CHECK(err(svd + "--n 64 --k 64 --layout tile") ==
        "safespec vectors: --n: expected a multiple of 128 with --layout tile (the tile's rows), found 64\n");
  CHECK(err(svd + "--n 8 --k 64 --rank 0") == "safespec vectors: --rank: expected at least 1, found 0\n");
  CHECK(err(svd + "--n 8 --k 64 --group-size 64") ==
        "safespec vectors: --group-size: expected only with --format asym_w4a8_int8, found it with --format "
        "svdquant_w4a4\n");
  CHECK(err(svd + "--n 8 --k 64 --codebook") ==
        "safespec vectors: --codebook: expected only with --format asym_w4a8_int8, found it with --format "
        "svdquant_w4a4\n");
  CHECK(err("--m 2 --n 8 --k 256 --rank 4") ==
        "safespec vectors: --rank: expected only with --format svdquant_w4a4, found it with --format asym_w4a8_int8\n");
  CHECK(err("--m 2 --n 8 --k 256 --layout natural") ==
        "safespec vectors: --layout: expected only with --format svdquant_w4a4, found it with --format "
        "asym_w4a8_int8\n");
  CHECK(err(svd + "--n 8 --k 64 --layout tiles").find("--layout") != std::string::npos);
  CHECK(err("--format svdquant --m 2 --n 8 --k 64").find("--format") != std::string::npos);
}
