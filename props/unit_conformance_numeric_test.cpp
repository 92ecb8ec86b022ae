// `safespec conformance numeric`, which holds a linear implementation to the
// golden vectors: the
// runner over the committed golden vectors (corpus/vectors) with safespec's
// own linear, and with test programs (props/impls/) that copy the expected
// output, perturb some elements by 1 and by 300 ulps, write garbage, fail,
// crash or hang. The exact per-vector report lines and exit status.
#include <unistd.h>

#include <filesystem>
#include <string>

#include "props/catch.hpp"
#include "props/unit_support.hpp"

using namespace safespec;
using test::Run;
namespace fs = std::filesystem;

namespace {

struct NumericScratch : test::TempDir {
  NumericScratch() : TempDir("safespec_conformance_numeric") {}
  // `conformance numeric` over corpus/vectors with `impl` (a template whose
  // first word is a program of props/impls, or the safespec command).
  Run numeric(const std::string& impl, const std::string& more = "") const {
    return test::run_cli(dir.string(),
                         "conformance numeric --vectors " + test::shell_word(test::vectors_dir().string()) + " --impl " + test::shell_word(impl) + " " + more);
  }
};

std::string program(const std::string& name) { return test::shell_word(test::impls_dir() + "/" + name); }

const std::string kCudaSummary = "numeric cuda: 11 vectors (22 more have no cuda output): ";

}  // namespace

TEST_CASE("conformance numeric: safespec linear is bit-exact on every vector of both semantics", "[conformance]") {
  const NumericScratch s;
  const std::string linear = test::shell_word(test::cli_path()) + " linear {checkpoint} --layer {layer} --input {input} --out {output}";
  Run r = s.numeric(linear + " --semantics cuda");
  CHECK(r.code == 0);
  CHECK(r.err == "");
  CHECK(r.out ==
        "g16_c256_f16_codebook: F16 [3, 8]: bit-exact: ok\n"
        "g16_c256_f32_bias: F32 [3, 8]: bit-exact: ok\n"
        "g32_c256_bf16_codebook_bias: BF16 [3, 8]: bit-exact: ok\n"
        "g4_c256_bf16_correction: BF16 [3, 8]: bit-exact: ok\n"
        "g4_c256_f32_codebook_correction_bias: F32 [3, 8]: bit-exact: ok\n"
        "g64_c256_f16_correction_bias: F16 [3, 8]: bit-exact: ok\n"
        "g8_c256_bf16_plain: BF16 [3, 8]: bit-exact: ok\n"
        "g8_c256_f16_codebook_correction: F16 [3, 8]: bit-exact: ok\n"
        "w6_g16_c256_f16_plain: F16 [3, 8]: bit-exact: ok\n"
        "w6_g32_c256_f32_bias: F32 [3, 8]: bit-exact: ok\n"
        "w6_g64_c256_bf16_plain: BF16 [3, 8]: bit-exact: ok\n" +
            kCudaSummary + "11 bit-exact, 0 within 1 ulp, 0 further off, 0 without a usable output; tolerance 0 ulps: ok\n");
  r = s.numeric(linear + " --semantics eager", "--semantics eager");
  CHECK(r.code == 0);
  CHECK(r.out.find("g4_c16_f32_plain: F32 [3, 8]: bit-exact: ok\n") != std::string::npos);
  CHECK(r.out.ends_with("numeric eager: 33 vectors: 33 bit-exact, 0 within 1 ulp, 0 further off, 0 without a usable "
                        "output; tolerance 0 ulps: ok\n"));
  // The eager backend's outputs are not the CUDA kernel's: the first
  // differing element, and how far.
  r = s.numeric(linear + " --semantics eager", "--semantics cuda");
  CHECK(r.code == 1);
  CHECK(r.out.starts_with(
      "g16_c256_f16_codebook: F16 [3, 8]: within 1 ulp: 11/24 elements differ, first at [0, 2]: expected 0.696777344 "
      "(0x3993), got 0.696289062 (0x3992); ulps 0: 17, 1: 7, 2-3: 0, 4-15: 0, 16+: 0; 7/24 beyond the tolerance: FAIL\n"
      "g16_c256_f32_bias: F32 [3, 8]: within 1 ulp: 11/24 elements differ, first at [0, 5]: expected 1.27302921 "
      "(0x3fa2f29f), got 1.27302933 (0x3fa2f2a0); ulps 0: 13, 1: 11, 2-3: 0, 4-15: 0, 16+: 0; 11/24 beyond the "
      "tolerance: FAIL\n"
      "g32_c256_bf16_codebook_bias: BF16 [3, 8]: max 29 ulps, max abs err 0.0625, max rel err 0.140096618: 18/24 "
      "elements differ, first at [0, 1]: expected 0.208007812 (0x3e55), got 0.189453125 (0x3e42); ulps 0: 6, 1: 7, "
      "2-3: 6, 4-15: 2, 16+: 3; 18/24 beyond the tolerance: FAIL\n"));
  // The F16 vector's 11 differing elements are 7 one ulp off and 4 zeros of
  // the other sign: equal values, so bucket 0 and within any tolerance.
}

TEST_CASE("conformance numeric: exact, within 1 ulp, or the max error and the first difference", "[conformance]") {
  const NumericScratch s;
  Run r = s.numeric(program("copy_expected") + " {checkpoint} {input} {output} cuda");
  CHECK(r.code == 0);
  CHECK(r.out.ends_with(kCudaSummary +
                        "11 bit-exact, 0 within 1 ulp, 0 further off, 0 without a usable output; tolerance 0 ulps: ok\n"));
  // BF16: element 5 one ulp up; F16: element 0 300 ulps up; F32 exact.
  r = s.numeric(program("perturb_some") + " {checkpoint} {input} {output} cuda");
  CHECK(r.code == 1);
  CHECK(r.err == "");
  CHECK(r.out ==
        "g16_c256_f16_codebook: F16 [3, 8]: max 300 ulps, max abs err 0.29296875, max rel err 0.274725275: 1/24 "
        "elements differ, first at [0, 0]: expected 1.06640625 (0x3c44), got 1.359375 (0x3d70)"
        "; ulps 0: 23, 1: 0, 2-3: 0, 4-15: 0, 16+: 1; 1/24 beyond the tolerance: FAIL\n"
        "g16_c256_f32_bias: F32 [3, 8]: bit-exact: ok\n"
        "g32_c256_bf16_codebook_bias: BF16 [3, 8]: within 1 ulp: 1/24 elements differ, first at [0, 5]: expected "
        "0.35546875 (0x3eb6), got 0.357421875 (0x3eb7)"
        "; ulps 0: 23, 1: 1, 2-3: 0, 4-15: 0, 16+: 0; 1/24 beyond the tolerance: FAIL\n"
        "g4_c256_bf16_correction: BF16 [3, 8]: within 1 ulp: 1/24 elements differ, first at [0, 5]: expected "
        "0.6015625 (0x3f1a), got 0.60546875 (0x3f1b)"
        "; ulps 0: 23, 1: 1, 2-3: 0, 4-15: 0, 16+: 0; 1/24 beyond the tolerance: FAIL\n"
        "g4_c256_f32_codebook_correction_bias: F32 [3, 8]: bit-exact: ok\n"
        "g64_c256_f16_correction_bias: F16 [3, 8]: max 300 ulps, max abs err 0.0366210938, max rel err 0.190597205: "
        "1/24 elements differ, first at [0, 0]: expected -0.192138672 (0xb226), got -0.228759766 (0xb352)"
        "; ulps 0: 23, 1: 0, 2-3: 0, 4-15: 0, 16+: 1; 1/24 beyond the tolerance: FAIL\n"
        "g8_c256_bf16_plain: BF16 [3, 8]: within 1 ulp: 1/24 elements differ, first at [0, 5]: expected -0.255859375 "
        "(0xbe83), got -0.2578125 (0xbe84)"
        "; ulps 0: 23, 1: 1, 2-3: 0, 4-15: 0, 16+: 0; 1/24 beyond the tolerance: FAIL\n"
        "g8_c256_f16_codebook_correction: F16 [3, 8]: max 300 ulps, max abs err 0.146484375, max rel err 0.281954887: "
        "1/24 elements differ, first at [0, 0]: expected 0.51953125 (0x3828), got 0.666015625 (0x3954)"
        "; ulps 0: 23, 1: 0, 2-3: 0, 4-15: 0, 16+: 1; 1/24 beyond the tolerance: FAIL\n"
        "w6_g16_c256_f16_plain: F16 [3, 8]: max 300 ulps, max abs err 0.5859375, max rel err 0.259291271: 1/24 "
        "elements differ, first at [0, 0]: expected 2.25976562 (0x4085), got 2.84570312 (0x41b1)"
        "; ulps 0: 23, 1: 0, 2-3: 0, 4-15: 0, 16+: 1; 1/24 beyond the tolerance: FAIL\n"
        "w6_g32_c256_f32_bias: F32 [3, 8]: bit-exact: ok\n"
        "w6_g64_c256_bf16_plain: BF16 [3, 8]: within 1 ulp: 1/24 elements differ, first at [0, 5]: expected -0.84375 "
        "(0xbf58), got -0.84765625 (0xbf59)"
        "; ulps 0: 23, 1: 1, 2-3: 0, 4-15: 0, 16+: 0; 1/24 beyond the tolerance: FAIL\n" +
            kCudaSummary +
            "3 bit-exact, 4 within 1 ulp, 4 further off, 0 without a usable output; tolerance 0 ulps: FAIL\n");
  // --ulps 1 lets the one-ulp vectors through, not the 300-ulp ones.
  r = s.numeric(program("perturb_some") + " {checkpoint} {input} {output} cuda", "--ulps 1");
  CHECK(r.code == 1);
  CHECK(r.out.find("g8_c256_bf16_plain: BF16 [3, 8]: within 1 ulp: 1/24 elements differ, first at [0, 5]: expected "
                   "-0.255859375 (0xbe83), got -0.2578125 (0xbe84); ulps 0: 23, 1: 1, 2-3: 0, 4-15: 0, 16+: 0: "
                   "ok\n") != std::string::npos);
  CHECK(r.out.ends_with(kCudaSummary +
                        "3 bit-exact, 4 within 1 ulp, 4 further off, 0 without a usable output; tolerance 1 ulp: FAIL\n"));
  r = s.numeric(program("perturb_some") + " {checkpoint} {input} {output} cuda", "--ulps 300");
  CHECK(r.code == 0);
  // --atol 0.1 passes the 0.0366 error but not 0.146, 0.293 or 0.586; 0.6 passes all.
  r = s.numeric(program("perturb_some") + " {checkpoint} {input} {output} cuda", "--atol 0.1");
  CHECK(r.code == 1);
  CHECK(r.out.find("(0xb352); ulps 0: 23, 1: 0, 2-3: 0, 4-15: 0, 16+: 1: ok\n") != std::string::npos);
  CHECK(r.out.find("(0x3954); ulps 0: 23, 1: 0, 2-3: 0, 4-15: 0, 16+: 1; 1/24 beyond the tolerance: FAIL\n") !=
        std::string::npos);
  CHECK(r.out.ends_with("further off, 0 without a usable output; tolerance 0 ulps or 0.1 + 0 * |expected|: FAIL\n"));
  r = s.numeric(program("perturb_some") + " {checkpoint} {input} {output} cuda", "--atol 0.6");
  CHECK(r.code == 0);
  // rtol 0.2 scales with |expected|: 0.19 passes, 0.26, 0.27 and 0.28 do not.
  r = s.numeric(program("perturb_some") + " {checkpoint} {input} {output} cuda", "--rtol 0.2");
  CHECK(r.code == 1);
  CHECK(r.out.find("(0xb352); ulps 0: 23, 1: 0, 2-3: 0, 4-15: 0, 16+: 1: ok\n") != std::string::npos);
  CHECK(s.numeric(program("perturb_some") + " {checkpoint} {input} {output} cuda", "--rtol -0.5").code == 2);
}

TEST_CASE("conformance numeric: no usable output is a failure that says why", "[conformance]") {
  const NumericScratch s;
  Run r = s.numeric(program("garbage_output") + " {checkpoint} {input} {output}");
  CHECK(r.code == 1);
  CHECK(r.out.starts_with(
      "g16_c256_f16_codebook: output: g16_c256_f16_codebook.safetensors: ST-HEADER-TOO-LARGE at byte 0: expected a "
      "header length of at most 100000000 bytes, found 7021991845529153390: FAIL\n"));
  CHECK(r.out.ends_with(kCudaSummary +
                        "0 bit-exact, 0 within 1 ulp, 0 further off, 11 without a usable output; tolerance 0 ulps: FAIL\n"));
  r = s.numeric(program("reject_all") + " {checkpoint} {input} {output}");
  CHECK(r.code == 1);
  CHECK(r.out.starts_with("g16_c256_f16_codebook: exit status 1: FAIL\n"));
  // crash_some dies of SIGSEGV on a name containing _segv.
  r = s.numeric(program("crash_some") + " {checkpoint}_segv {input} {output}");
  CHECK(r.code == 1);
  CHECK(r.out.starts_with("g16_c256_f16_codebook: killed by SIGSEGV: FAIL\n"));
  // sleep_some hangs on a name containing _slow.
  r = s.numeric(program("sleep_some") + " {checkpoint}_slow {input} {output}", "--timeout 2 --jobs 8");
  CHECK(r.code == 1);
  CHECK(r.out.starts_with("g16_c256_f16_codebook: no exit within 2 s: FAIL\n"));
  CHECK(r.out.ends_with(kCudaSummary +
                        "0 bit-exact, 0 within 1 ulp, 0 further off, 11 without a usable output; tolerance 0 ulps: FAIL\n"));
}

TEST_CASE("conformance numeric: usage errors exit 2", "[conformance]") {
  const NumericScratch s;
  const auto usage = [&](const Run& r, const std::string& err) {
    CHECK(r.code == 2);
    CHECK(r.out == "");
    CHECK(r.err == err);
  };
  usage(s.numeric(program("copy_expected") + " {checkpoint} {input} cuda"),
        "safespec: --impl: expected {output} in the template, found '" + program("copy_expected") +
            " {checkpoint} {input} cuda'\n");
  usage(s.numeric("tool {checkpoint} {input} {output} > log"),
        "safespec: --impl: found an unquoted '>' at byte 35 of the template: the command runs without a shell, so "
        "pipes, redirections and variables need sh -c '...' (or quote the character to pass it on literally)\n");
  usage(s.numeric("no_such_program_for_safespec {checkpoint} {input} {output}"),
        "safespec: cannot run 'no_such_program_for_safespec': No such file or directory\n");
  usage(s.numeric(program("copy_expected") + " {checkpoint} {input} {output} cuda", "--semantics fast"),
        "--semantics: fast not in {cuda,eager}\nRun with --help for more information.\n");
  // A directory without vectors, and one that does not exist.
  const std::string impl = test::shell_word(program("copy_expected") + " {checkpoint} {input} {output} cuda");
  usage(test::run_cli(s.dir.string(), "conformance numeric --vectors " + test::shell_word(s.dir.string()) + " --impl " + impl),
        "safespec: " + s.dir.string() +
            ": expected vector directories with layer.safetensors, x.safetensors and y_cuda.safetensors, found none\n");
  const std::string missing = (s.dir / "missing").string();
  usage(test::run_cli(s.dir.string(), "conformance numeric --vectors " + test::shell_word(missing) + " --impl " + impl),
        "safespec: " + missing + ": No such file or directory\n");
}
