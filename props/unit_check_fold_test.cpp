// The text report of `check`: errors before warnings, and a rule that
// repeats in a file folded after its first two findings into one line with
// the count and the next places; --verbose lists every one, and JSON is
// never folded.
#include <algorithm>
#include <string>
#include <vector>

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

// Four fp8 layers, then a tensor after a gap: every consumer rejects the
// file before it reads a layer.
Bytes fp8_layers_then_gap() {
  const std::string marker = R"({"format":"float8_e4m3fn"})";
  std::string h = "{";
  std::size_t off = 0;
  std::vector<std::size_t> markers;
  const auto entry = [&](const std::string& name, const char* dtype, const std::string& shape, std::size_t size) {
    h += (h.size() > 1 ? "," : "") + ("\"" + name + "\":{\"dtype\":\"") + dtype + "\",\"shape\":" + shape +
         ",\"data_offsets\":[" + std::to_string(off) + "," + std::to_string(off + size) + "]}";
    off += size;
  };
  for (int i = 0; i < 4; ++i) {
    const std::string p = "l" + std::to_string(i);
    entry(p + ".weight", "F8_E4M3", "[4,64]", 256);
    entry(p + ".weight_scale", "F32", "[]", 4);
    markers.push_back(off);
    entry(p + ".comfy_quant", "U8", "[" + std::to_string(marker.size()) + "]", marker.size());
  }
  off += 1;  // the gap
  entry("z", "U8", "[1]", 1);
  h = pad8(h + "}");
  Bytes out(8, 0);
  for (std::size_t i = 0; i < 8; ++i) out[i] = static_cast<std::uint8_t>((h.size() >> (8 * i)) & 0xff);
  out.insert(out.end(), h.begin(), h.end());
  const std::size_t data = out.size();
  out.resize(data + off, 0);
  for (std::size_t m : markers) std::copy(marker.begin(), marker.end(), out.begin() + static_cast<std::ptrdiff_t>(data + m));
  return out;
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
  CHECK(test::occurrences(r.out, "  warning ST-TENSOR-UNALIGNED at ") == 2);
  CHECK(r.out.find("          and 4 more ST-TENSOR-UNALIGNED warnings at tensor 't2', tensor 't3', tensor 't4', ... "
                   "(--verbose lists each)\n") != std::string::npos);
  const Run v = s.run("check --verbose " + p);
  CHECK(test::occurrences(v.out, "  warning ST-TENSOR-UNALIGNED at ") == 6);
  CHECK(v.out.find(" more ST-TENSOR-UNALIGNED") == std::string::npos);
  const Run j = s.run("check --json " + p);
  CHECK(test::occurrences(j.out, "\"rule\":\"ST-TENSOR-UNALIGNED\"") == 6);
}

TEST_CASE("inspect folds the layers a rejected checkpoint never reaches, --verbose and JSON list each", "[inspect]") {
  CliScratch s("safespec_unit_check_fold");
  const std::string p = s.file("gap.safetensors", fp8_layers_then_gap());
  const std::string cause =
      "(SafetensorError: Error while deserializing header: invalid offset for tensor `z`)";
  const Run r = s.run("inspect " + shell_word(p));
  CHECK(r.code == 0);
  // The first two layers in full, then one line for the other two.
  CHECK(test::occurrences(r.out, "    sglang: not reached: no finding at this layer; the checkpoint is rejected first " + cause) == 2);
  CHECK(r.out.find("  'l3': float8_e4m3fn, marker tensor 'l3.comfy_quant'\n"
                   "  and 2 more layers where sglang, comfyui and kitchen are not reached " + cause +
                   " (--verbose lists each)\n") != std::string::npos);
  const Run all = s.run("inspect --verbose " + shell_word(p));
  CHECK(test::occurrences(all.out, "not reached: no finding at this layer") == 12);
  CHECK(all.out.find("more layers") == std::string::npos);
  CHECK(test::occurrences(s.run("inspect --json " + shell_word(p)).out, R"("verdict":"not reached")") == 12);
}
