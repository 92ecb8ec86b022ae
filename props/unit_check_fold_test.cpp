// The text report of `check`: errors before warnings, and a rule that
// repeats in a file folded after its first two findings into one line with
// the count and the next places; --verbose lists every one, and JSON is
// never folded.
#include <string>

#include "props/catch.hpp"
#include "props/unit_support.hpp"

using namespace safespec;
using namespace safespec::test;

namespace {

// Six F32 tensors one byte off their alignment, then a tensor after a gap
// (an error the reference shares).
Bytes unaligned_and_gap() {
  std::string h = R"({"p":{"dtype":"U8","shape":[1],"data_offsets":[0,1]})";
  std::size_t off = 1;
  for (int i = 0; i < 6; ++i, off += 4)
    h += ",\"t" + std::to_string(i) + R"(":{"dtype":"F32","shape":[1],"data_offsets":[)" + std::to_string(off) + "," +
         std::to_string(off + 4) + "]}";
  h += R"(,"z":{"dtype":"U8","shape":[1],"data_offsets":[)" + std::to_string(off + 2) + "," + std::to_string(off + 3) +
       "]}}";
  h = pad8(h);
  Bytes out(8, 0);
  for (std::size_t i = 0; i < 8; ++i) out[i] = static_cast<std::uint8_t>((h.size() >> (8 * i)) & 0xff);
  out.insert(out.end(), h.begin(), h.end());
  out.resize(out.size() + off + 3, 0);
  return out;
}

std::size_t count(const std::string& s, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t at = s.find(needle); at != std::string::npos; at = s.find(needle, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("check text: errors first, and a repeated rule folded after two", "[check]") {
  const CliScratch s("check-fold");
  const std::string p = shell_word(s.file("fold.safetensors", unaligned_and_gap()));
  const Run r = s.run("check " + p);
  CHECK(r.code == 1);
  const std::size_t error = r.out.find("  error   ST-OFFSET-GAP at tensor 'z'");
  REQUIRE(error != std::string::npos);
  CHECK(error < r.out.find("  warning "));
  CHECK(count(r.out, "  warning ST-TENSOR-UNALIGNED at ") == 2);
  CHECK(r.out.find("          and 4 more ST-TENSOR-UNALIGNED warnings at tensor 't2', tensor 't3', tensor 't4', ... "
                   "(--verbose lists each)\n") != std::string::npos);
  const Run v = s.run("check --verbose " + p);
  CHECK(count(v.out, "  warning ST-TENSOR-UNALIGNED at ") == 6);
  CHECK(v.out.find(" more ST-TENSOR-UNALIGNED") == std::string::npos);
  const Run j = s.run("check --json " + p);
  CHECK(count(j.out, "\"rule\":\"ST-TENSOR-UNALIGNED\"") == 6);
}
