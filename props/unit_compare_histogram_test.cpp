// `compare` and `conformance numeric` beyond the first difference: the ulp
// histogram, max abs and rel error, and --atol / --rtol beside --ulps
// (numpy.isclose's rule), in text and JSON, on a hand-made pair of files.
#include <bit>
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "props/catch.hpp"
#include "props/unit_support.hpp"
#include "src/commands/compare.hpp"
#include "src/io/writer.hpp"

using namespace safespec;
using test::Run;

namespace {

std::vector<std::uint8_t> f32_bits(std::initializer_list<std::uint32_t> v) {
  std::vector<std::uint8_t> out;
  for (std::uint32_t u : v)
    for (int b = 0; b < 4; ++b) out.push_back(static_cast<std::uint8_t>(u >> (8 * b)));
  return out;
}

// The file's path, quoted for the command line.
std::string write(const test::CliScratch& s, const std::string& name, const std::vector<std::uint8_t>& data) {
  auto bytes = serialize({TensorView{"y", Dtype::F32, {6}, data}}, std::nullopt);
  REQUIRE(bytes.ok());
  return "'" + s.file(name, bytes.value()) + "'";
}

// 1 exact; 2 + 1 ulp; 0.5 + 3 ulps; -1 - 10 ulps; 100 + 20 ulps; 0 against a NaN.
const std::vector<std::uint8_t> kExpected =
    f32_bits({0x3f800000, 0x40000000, 0x3f000000, 0xbf800000, 0x42c80000, 0x00000000});
const std::vector<std::uint8_t> kActual =
    f32_bits({0x3f800000, 0x40000001, 0x3f000003, 0xbf80000a, 0x42c80014, 0x7fc00000});

}  // namespace

TEST_CASE("compare: the ulp histogram, errors, first and worst difference of a hand-made pair", "[compare]") {
  const test::CliScratch s("safespec_compare_histogram");
  const std::string e = write(s, "e.safetensors", kExpected), a = write(s, "a.safetensors", kActual);
  const std::string ea = "compare " + e + " " + a;
  Run r = s.run(ea);
  CHECK(r.code == 1);
  CHECK(r.out ==
        "y: F32 [6]: 1/6 bit-exact, max inf ulps, max abs err inf, max rel err inf: FAIL\n"
        "  ulps 0: 1, 1: 1, 2-3: 1, 4-15: 1, 16+: 2; 5/6 beyond the tolerance; first difference at [1]: expected 2 "
        "(0x40000000), got 2.00000024 (0x40000001)\n"
        "  worst difference (inf ulps) at [5]: expected 0 (0x00000000), got nan (0x7fc00000)\n"
        "compare: 1 tensor, 1 beyond 0 ulps\n");
  // --ulps 20 passes all but the NaN; so does an absolute bound of 2e-4.
  r = s.run(ea + " --ulps 20");
  CHECK(r.out.find("; 1/6 beyond the tolerance;") != std::string::npos);
  r = s.run(ea + " --atol 2e-4");
  CHECK(r.out.find("; 1/6 beyond the tolerance;") != std::string::npos);
  CHECK(r.out.ends_with("compare: 1 tensor, 1 beyond 0 ulps or 0.0002 + 0 * |expected|\n"));
  // rtol scales with |expected|: 1e-6 passes 2 + 1 ulp and 0.5 + 3 ulps, not -1 - 10 ulps
  // (1.19e-6 > 1e-6) nor 100 + 20 ulps (1.5e-4 > 1e-4).
  r = s.run(ea + " --rtol 1e-6");
  CHECK(r.out.find("; 3/6 beyond the tolerance;") != std::string::npos);

  // Without the NaN, the same pair within tolerance: ok, exit 0.
  std::vector<std::uint8_t> finite = kActual;
  for (int b = 0; b < 4; ++b) finite[20 + b] = 0;
  const std::string ef = "compare " + e + " " + write(s, "f.safetensors", finite);
  r = s.run(ef + " --atol 1e-6 --rtol 2e-6");
  CHECK(r.code == 0);
  CHECK(r.out ==
        "y: F32 [6]: 2/6 bit-exact, max 20 ulps, max abs err 0.000152587891, max rel err 1.52587891e-06: ok\n"
        "  ulps 0: 2, 1: 1, 2-3: 1, 4-15: 1, 16+: 1; 0/6 beyond the tolerance; first difference at [1]: expected 2 "
        "(0x40000000), got 2.00000024 (0x40000001)\n"
        "  worst difference (20 ulps) at [4]: expected 100 (0x42c80000), got 100.000153 (0x42c80014)\n"
        "compare: 1 tensor, all within 0 ulps or 1e-06 + 2e-06 * |expected|\n");
  r = s.run(ef + " --atol 1e-6 --rtol 2e-6 --json");
  CHECK(r.code == 0);
  CHECK(r.out ==
        "{\"schema\":1,\"tolerance\":{\"ulps\":0,\"atol\":9.9999999999999995e-07,\"rtol\":1.9999999999999999e-06},"
        "\"tensors\":[{\"name\":\"y\",\"ok\":true,\"error\":null,\"dtype\":\"F32\",\"shape\":[6],\"count\":6,"
        "\"bit_exact\":2,\"beyond\":0,\"max_ulps\":20,\"max_abs_err\":0.000152587890625,"
        "\"max_rel_err\":1.5258789062500001e-06,\"histogram\":{\"0\":2,\"1\":1,\"2-3\":1,\"4-15\":1,\"16+\":1},"
        "\"first_difference\":{\"index\":1,\"position\":\"[1]\",\"expected\":\"2 (0x40000000)\",\"actual\":"
        "\"2.00000024 (0x40000001)\"},\"worst_difference\":{\"index\":4,\"position\":\"[4]\",\"expected\":"
        "\"100 (0x42c80000)\",\"actual\":\"100.000153 (0x42c80014)\"}}],\"ok\":true}\n");
  // Bad tolerances are usage errors.
  CHECK(s.run(ea + " --atol -1").code == 2);
  CHECK(s.run(ea + " --rtol inf").code == 2);
}

TEST_CASE("compare: Tolerance follows numpy.isclose for finite values, the ulp rule for the rest", "[compare]") {
  const Tolerance t{0, 0.5, 0.1};
  const auto d = [](double abs) { return ElementDistance{std::nullopt, abs, 0}; };
  CHECK(t.passes(d(0.5), 0.0, 0.5));
  CHECK(t.passes(d(1.5), 10.0, 11.5));    // 0.5 + 0.1 * 10
  CHECK(!t.passes(d(1.5), -1.0, 0.5));    // scales with |expected| only
  CHECK(!t.passes(d(INFINITY), INFINITY, 1.0));
  CHECK(t.passes(ElementDistance{0, 0, 0}, INFINITY, INFINITY));
  CHECK(ulp_bucket(std::nullopt) == 4);
  CHECK(ulp_bucket(15) == 3);
  CHECK(ulp_bucket(3) == 2);
}
