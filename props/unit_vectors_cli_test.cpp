// `safespec vectors`: a W4A8 vector for chosen shapes, in the golden
// vectors' layout, that `conformance numeric` replays whatever the layer's
// name; the same seed and shapes as a golden vector give its bytes; a bad
// shape is a usage error naming the option.
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

std::vector<char> file_chars(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Element i of y's bytes in a vector's output file, as BF16 bits.
std::uint16_t bf16_bits(const fs::path& file, std::size_t i) {
  auto r = CheckpointReader::open(file.string());
  REQUIRE(r.ok());
  const quant::TensorRef* y = r.value()->find("y");
  REQUIRE(y != nullptr);
  auto b = r.value()->bytes(*y);
  REQUIRE(b.ok());
  REQUIRE(b.value().size() >= 2 * i + 2);
  return static_cast<std::uint16_t>(b.value()[2 * i] | b.value()[2 * i + 1] << 8);
}

const std::string kLinear = " linear {checkpoint} --layer {layer} --input {input} --out {output}";

// The CLI runs in the source tree: every path it is given is absolute.
std::string at(const test::CliScratch& s, const std::string& name) { return (s.dir / name).string(); }

}  // namespace

TEST_CASE("vectors: a folder for chosen shapes, replayed by conformance numeric under any layer name", "[vectors]") {
  const test::CliScratch s("safespec_vectors_cli");
  Run r = s.run("vectors --m 5 --n 24 --k 512 --group-size 32 --convrot-groupsize 256 --dtype bf16 --seed 7 "
                "--layer model.blocks.0.mlp --correction " + test::shell_word(at(s, "out/")));
  REQUIRE(r.code == 0);
  CHECK(r.err == "");
  CHECK(r.out == at(s, "out/") + ": layer 'model.blocks.0.mlp' asym_w4a8_int8 N=24 K=512 G=32 C=256, x [5, 512] BF16, outputs: "
                 "y_eager y_cuda\n");
  for (const char* f : {"layer.safetensors", "x.safetensors", "y_eager.safetensors", "y_cuda.safetensors"})
    CHECK(fs::is_regular_file(s.dir / "out" / f));
  // Pinned: a change to the generator or the reference shows here.
  CHECK(bf16_bits(s.dir / "out" / "y_cuda.safetensors", 0) == 0x3f90);
  CHECK(bf16_bits(s.dir / "out" / "y_eager.safetensors", 0) == 0x3f8f);

  const std::string linear = test::shell_word(test::cli_path()) + kLinear;
  for (const char* sem : {"cuda", "eager"}) {
    r = s.run("conformance numeric --vectors " + test::shell_word(at(s, "out/")) + " --semantics " + std::string(sem) + " --impl " +
              test::shell_word(linear + " --semantics " + sem));
    INFO(r.err);
    CHECK(r.code == 0);
    CHECK(r.out == "out: BF16 [5, 24]: bit-exact: ok\nnumeric " + std::string(sem) +
                       ": 1 vector: 1 bit-exact, 0 within 1 ulp, 0 further off, 0 without a usable output; tolerance 0 "
                       "ulps: ok\n");
  }
}

TEST_CASE("vectors: C other than 256 has no cuda output, and numeric says why it has nothing to run", "[vectors]") {
  const test::CliScratch s("safespec_vectors_cli");
  Run r = s.run("vectors --m 2 --n 8 --k 64 --convrot-groupsize 16 --dtype F16 " + test::shell_word(at(s, "v")));
  REQUIRE(r.code == 0);
  CHECK(r.out == at(s, "v") + ": layer 'lin' asym_w4a8_int8 N=8 K=64 G=16 C=16, x [2, 64] F16, outputs: y_eager (no y_cuda: the "
                 "CUDA kernel takes only C = 256)\n");
  CHECK(!fs::exists(s.dir / "v" / "y_cuda.safetensors"));
  r = s.run("conformance numeric --vectors " + test::shell_word(at(s, "v")) + " --impl " + test::shell_word(test::shell_word(test::cli_path()) + kLinear));
  CHECK(r.code == 2);
  CHECK(r.err == "safespec: " + at(s, "v") + ": expected a vector with y_cuda.safetensors, found 1 without (the cuda outputs need C = 256)\n");
}

TEST_CASE("vectors: the golden vectors are this command's output for their shapes and seed", "[vectors]") {
  // g16_c256_f32_bias is make_vectors' vector 12: seed 1012, M 3, N 8, K 256.
  const test::CliScratch s("safespec_vectors_cli");
  const Run r = s.run("vectors --m 3 --n 8 --k 256 --group-size 16 --dtype F32 --bias --seed 1012 " + test::shell_word(at(s, "g")));
  REQUIRE(r.code == 0);
  const fs::path golden = test::vectors_dir() / "g16_c256_f32_bias";
  for (const char* f : {"layer.safetensors", "x.safetensors", "y_eager.safetensors", "y_cuda.safetensors"}) {
    INFO(f);
    CHECK(file_chars(s.dir / "g" / f) == file_chars(golden / f));
  }
}

TEST_CASE("vectors: shapes the layer cannot have are usage errors naming the option", "[vectors]") {
  const test::CliScratch s("safespec_vectors_cli");
  const auto err = [&](const std::string& args) {
    const Run r = s.run("vectors " + args + " " + test::shell_word(at(s, "bad")));
    CHECK(r.code == 2);
    CHECK(r.out == "");
    CHECK(!fs::exists(s.dir / "bad"));
    return r.err;
  };
  CHECK(err("--m 2 --n 8 --k 100") ==
        "safespec vectors: --k: expected a multiple of 16, of --group-size (16) and of --convrot-groupsize (256), "
        "found 100\n");
  CHECK(err("--m 0 --n 8 --k 256") == "safespec vectors: --m: expected at least 1, found 0\n");
  CHECK(err("--m 2 --n 8 --k 256 --group-size 24") ==
        "safespec vectors: --group-size: expected at least 4 and a divisor of 16 or a multiple of 16, found 24\n");
  CHECK(err("--m 2 --n 8 --k 256 --convrot-groupsize 32") ==
        "safespec vectors: --convrot-groupsize: expected a power of 4 that is at least 4, found 32\n");
  CHECK(err("--m 100000 --n 8 --k 2048 --dtype F32") ==
        "safespec vectors: x [M, K]: expected at most 268435456 bytes (what linear and compare read), found "
        "819200000 bytes\n");
  CHECK(err("--m 2 --n 8 --k 256 --dtype F64").find("--dtype") != std::string::npos);
}

TEST_CASE("vectors --bits 6: a W6A8 vector that linear and --dump replay bit for bit, and dequant's --codebook",
          "[vectors]") {
  const test::CliScratch s("safespec_vectors_cli");
  Run r = s.run("vectors --m 3 --n 8 --k 256 --bits 6 --bias " + test::shell_word(at(s, "w6")));
  REQUIRE(r.code == 0);
  CHECK(r.out == at(s, "w6") + ": layer 'lin' asym_w4a8_int8 N=8 K=256 G=16 C=256 6-bit (W6A8), x [3, 256] BF16, "
                 "outputs: y_eager y_cuda\n");
  const std::string linear = test::shell_word(test::cli_path()) + kLinear;
  for (const char* sem : {"cuda", "eager"}) {
    r = s.run("conformance numeric --vectors " + test::shell_word(at(s, "w6")) + " --semantics " + std::string(sem) +
              " --impl " + test::shell_word(linear + " --semantics " + sem));
    INFO(r.err);
    CHECK(r.code == 0);
  }
  const std::string layer = test::shell_word(at(s, "w6/layer.safetensors"));
  r = s.run("linear " + layer + " --layer lin --input " + test::shell_word(at(s, "w6/x.safetensors")) + " --out " +
            test::shell_word(at(s, "y.safetensors")) + " --dump " + test::shell_word(at(s, "dump")));
  CHECK(r.code == 0);
  CHECK(fs::is_regular_file(s.dir / "dump" / "wq.safetensors"));
  CHECK(s.run("dequant " + layer + " --layer lin --out " + test::shell_word(at(s, "w.safetensors"))).code == 0);
  r = s.run("dequant " + layer + " --layer lin --codebook frozen --out " + test::shell_word(at(s, "w.safetensors")));
  CHECK(r.code == 2);
  CHECK(r.err == "safespec: layer 'lin': --codebook frozen: a 6-bit layer decodes uniform codes (code - 32) and takes "
                 "no codebook\n");
  r = s.run("vectors --m 1 --n 1 --k 256 --group-size 8 --bits 6 " + test::shell_word(at(s, "bad")));
  CHECK(r.code == 2);
  CHECK(r.err == "safespec vectors: --bits 6: expected --k a multiple of 32 and --group-size a multiple of 16, found "
                 "K = 256, G = 8\n");
}

TEST_CASE("dequant --codebook frozen: a 4-bit layer without a codebook decodes through kitchen's frozen table",
          "[vectors]") {
  const test::CliScratch s("safespec_vectors_cli");
  REQUIRE(s.run("vectors --m 1 --n 4 --k 256 " + test::shell_word(at(s, "v4"))).code == 0);
  const std::string layer = test::shell_word(at(s, "v4/layer.safetensors"));
  REQUIRE(s.run("dequant " + layer + " --layer lin --out " + test::shell_word(at(s, "u.safetensors"))).code == 0);
  REQUIRE(s.run("dequant " + layer + " --layer lin --codebook frozen --out " + test::shell_word(at(s, "f.safetensors")))
              .code == 0);
  CHECK(file_chars(s.dir / "u.safetensors") != file_chars(s.dir / "f.safetensors"));
  // A stored codebook wins: with one, frozen changes nothing.
  REQUIRE(s.run("vectors --m 1 --n 4 --k 256 --codebook " + test::shell_word(at(s, "cb"))).code == 0);
  const std::string with_cb = test::shell_word(at(s, "cb/layer.safetensors"));
  REQUIRE(s.run("dequant " + with_cb + " --layer lin --out " + test::shell_word(at(s, "a.safetensors"))).code == 0);
  REQUIRE(s.run("dequant " + with_cb + " --layer lin --codebook frozen --out " + test::shell_word(at(s, "b.safetensors")))
              .code == 0);
  CHECK(file_chars(s.dir / "a.safetensors") == file_chars(s.dir / "b.safetensors"));
}
