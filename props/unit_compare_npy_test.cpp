// `safespec compare` with a .npy on either side: linear and dequant write
// .npy, and compare reads what they write. A '<u2' array meets a BF16
// tensor as BF16; a file that is neither format says so.
#include <cstdio>
#include <filesystem>
#include <string>

#include "props/catch.hpp"
#include "props/unit_support.hpp"

using namespace safespec;
using namespace safespec::test;

TEST_CASE("compare: a .npy on either side meets the safetensors tensor it was written from", "[compare]") {
  const TempDir t("compare-npy");
  const std::string d = shell_word(t.dir.string());
  REQUIRE(run_cli(t.dir.string(), "vectors " + d + "/v --m 2 --n 8 --k 256").code == 0);
  const std::string linear = "linear " + d + "/v/layer.safetensors --layer lin --input " + d + "/v/x.safetensors --out ";
  REQUIRE(run_cli(t.dir.string(), linear + d + "/y.npy").code == 0);
  REQUIRE(run_cli(t.dir.string(), linear + d + "/y.safetensors").code == 0);
  const std::string exact = "y: BF16 [2, 8]: 16/16 bit-exact, max 0 ulps, max abs err 0, max rel err 0: ok\n"
                            "compare: 1 tensor, all within 0 ulps\n";
  const Run forward = run_cli(t.dir.string(), "compare " + d + "/y.safetensors " + d + "/y.npy");
  CHECK(forward.code == 0);
  CHECK(forward.out == exact);
  const Run backward = run_cli(t.dir.string(), "compare " + d + "/y.npy " + d + "/y.safetensors");
  CHECK(backward.code == 0);
  CHECK(backward.out == exact);
  // Two .npy files: bf16 travels as '<u2', compared as U16 bit patterns.
  const Run both = run_cli(t.dir.string(), "compare " + d + "/y.npy " + d + "/y.npy");
  CHECK(both.code == 0);
  CHECK(both.out.starts_with("y: U16 [2, 8]: 16/16 bit-exact"));
}

TEST_CASE("compare: a file that is neither a safetensors file nor a .npy says so", "[compare]") {
  const TempDir t("compare-neither");
  const std::string junk = (t.dir / "junk.npy").string();
  CHECK(run_cli(t.dir.string(), "vectors " + shell_word((t.dir / "v").string()) + " --m 2 --n 8 --k 256").code == 0);
  {
    std::FILE* f = std::fopen(junk.c_str(), "wb");
    REQUIRE(f);
    std::fputs("hello\n", f);
    std::fclose(f);
  }
  const std::string y = shell_word((t.dir / "v" / "y_eager.safetensors").string());
  const Run r = run_cli(t.dir.string(), "compare " + shell_word(junk) + " " + y);
  CHECK(r.code == 2);
  CHECK(r.err == "safespec: " + junk + ": expected a .npy file (starting \\x93NUMPY), found other bytes\n");
  const std::string other = (t.dir / "junk.bin").string();
  std::filesystem::copy_file(junk, other);
  const Run s = run_cli(t.dir.string(), "compare " + shell_word(other) + " " + y);
  CHECK(s.code == 2);
  CHECK(s.err.ends_with("(compare reads safetensors files and .npy arrays)\n"));
}
