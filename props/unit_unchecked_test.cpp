// No silent limits: what a check could not look at is
// listed ("complete", "unchecked", "not checked:"), and one cause gives one
// error: a truncated file is ST-BUFFER-TRUNCATED, its unreadable marker is
// unchecked, not missing.
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "gen/file_bytes.hpp"
#include "props/catch.hpp"
#include "props/unit_support.hpp"
#include "src/io/byte_file.hpp"
#include "src/commands/check.hpp"
#include "src/report/report.hpp"

using namespace safespec;
using test::Run;

namespace {

struct Scratch : test::CliScratch {
  Scratch() : CliScratch("safespec_unit_unchecked") {}
};

const std::string kMarker = R"({"format":"float8_e4m3fn"})";  // 26 bytes

std::string entry(const std::string& name, const std::string& dtype, const std::string& shape, std::uint64_t begin,
                  std::uint64_t end) {
  return "\"" + name + "\":{\"dtype\":\"" + dtype + "\",\"shape\":" + shape + ",\"data_offsets\":[" +
         std::to_string(begin) + "," + std::to_string(end) + "]}";
}

// An fp8 layer whose marker is the last tensor, cut before the marker.
std::vector<std::uint8_t> truncated_fp8() {
  const std::string header = test::pad8("{" + entry("p.weight", "F8_E4M3", "[4,64]", 0, 256) + "," +
                                        entry("p.weight_scale", "F32", "[]", 256, 260) + "," +
                                        entry("p.comfy_quant", "U8", "[26]", 260, 286) + "}");
  std::vector<std::uint8_t> file = gen::file_with_header(header, 260);
  const float one = 1.0f;
  std::memcpy(file.data() + file.size() - 4, &one, 4);
  return file;
}

}  // namespace

TEST_CASE("unchecked: a truncated file is one error, its unreadable marker is not checked, not missing", "[reports]") {
  Scratch s;
  const auto p = s.file("cut.safetensors", truncated_fp8());
  const Run r = s.run("check " + test::shell_word(p));
  CHECK(r.code == 1);
  const std::string sg = "SafetensorError: Error while deserializing header: incomplete metadata, file not fully "
                         "covered)\n";
  CHECK(r.out == p + ": FAIL (1 error, 0 warnings, profile strict)\n"
                     "  error   ST-BUFFER-TRUNCATED at byte 476: expected a byte buffer of 286 bytes (the last "
                     "tensor's end), found 260 bytes: the file is 26 bytes short [reference: MetadataIncompleteBuffer] "
                     "[sglang: rejects, comfyui: rejects, kitchen: rejects]\n"
                     "          fix: the file is cut short: copy or download it again\n"
                     "  not checked: marker tensor 'p.comfy_quant' (26 bytes at data_offsets [260, 286], which lie "
                     "outside the file)\n"
                     "  verdict all consumers: reject (safetensors: MetadataIncompleteBuffer: incomplete metadata, file "
                     "not fully covered; sglang, comfyui, kitchen: " + sg +
                     // ComfyUI's own parser: its check since PR #15722, and torch's frombuffer before it.
                     "  verdict comfyui (dynamic-vram): rejects (ValueError: Tensor 'p.comfy_quant' extends past the end "
                     "of the file.\n\nFile path: " + p + "\n\nThe safetensors file is corrupt/incomplete. Check the "
                     "file size and make sure you have copied/downloaded it correctly.)\n"
                     "  verdict comfyui (dynamic-vram-6db4fa2): rejects (ValueError: both buffer length (0) and count "
                     "(-1) must not be 0)\n");
  const Run j = s.run("check --json " + test::shell_word(p));
  CHECK(j.out.find(R"("complete":false,"unchecked":[{"what":"marker tensor 'p.comfy_quant'","why":"26 bytes at )"
                   R"(data_offsets [260, 286], which lie outside the file"}],"consumers":)") != std::string::npos);
  // The whole file: complete, nothing unchecked, and no finding at all.
  std::vector<std::uint8_t> whole = truncated_fp8();
  whole.insert(whole.end(), kMarker.begin(), kMarker.end());
  const auto w = s.file("whole.safetensors", whole);
  const Run ok = s.run("check --json " + test::shell_word(w));
  CHECK(ok.code == 0);
  CHECK(ok.out.find(R"("findings":[],"counts":{},"ignored":0,"complete":true,"unchecked":[],"consumers":)") != std::string::npos);
}

TEST_CASE("unchecked: compare prints what it compared and names the bound it stopped at", "[reports]") {
  Scratch s;
  // "big" is one byte over the 256 MiB read bound; the data is a hole.
  const std::uint64_t big = (std::uint64_t{256} << 20) + 1;
  const std::string header = test::pad8("{" + entry("big", "U8", "[" + std::to_string(big) + "]", 4, 4 + big) + "," +
                                        entry("small", "F32", "[1]", 0, 4) + "}");
  std::vector<std::uint8_t> head = gen::file_with_header(header, 4);
  const float one = 1.0f;
  std::memcpy(head.data() + head.size() - 4, &one, 4);
  const auto a = s.file("a.safetensors", head);
  const auto b = s.file("b.safetensors", head);
  std::filesystem::resize_file(a, head.size() + big);
  std::filesystem::resize_file(b, head.size() + big);
  const Run r = s.run("compare " + test::shell_word(a) + " " + test::shell_word(b));
  CHECK(r.code == 2);
  const std::string why = a + ": tensor 'big': cannot read its data: over the read bound of 256 MiB per tensor: it "
                              "has 268435457 bytes";
  CHECK(r.out == "big: not compared: " + why + ": FAIL\n"
                 "small: F32 [1]: 1/1 bit-exact, max 0 ulps, max abs err 0, max rel err 0: ok\n"
                 "compare: 2 tensors, 1 beyond 0 ulps\n");
  CHECK(r.err == "safespec: " + why + "\n");
}

// An fp8 layer whose weight_scale (a hole of 256 MiB + 4 bytes, zeros) is
// over the 256 MiB that --data once read of a tensor, written as `name`:
// its path, and how many bytes come before the scale's hole.
struct BigScaleFile {
  std::string path;
  std::uint64_t before_scale = 0;
};
BigScaleFile big_scale_fp8(const Scratch& s, const std::string& name) {
  const std::uint64_t scale = std::uint64_t{67108865} * 4;
  const std::string header = test::pad8("{" + entry("p.comfy_quant", "U8", "[26]", 0, 26) + "," +
                                        entry("p.weight", "F8_E4M3", "[4,64]", 26, 282) + "," +
                                        entry("p.weight_scale", "F32", "[67108865]", 282, 282 + scale) + "}");
  std::vector<std::uint8_t> head = gen::file_with_header(header, 0);
  head.insert(head.end(), kMarker.begin(), kMarker.end());
  head.resize(head.size() + 256, 0x38);
  BigScaleFile f{s.file(name, head), head.size()};
  std::filesystem::resize_file(f.path, f.before_scale + scale);
  return f;
}

// With --data streaming, no tensor is too large to read: the 256 MiB + 4
// bytes of zero scales are judged, and the report is complete.
TEST_CASE("unchecked: check --data reads a tensor over the old 256 MiB bound and judges it, complete", "[reports]") {
  Scratch s;
  const auto p = big_scale_fp8(s, "big_scale.safetensors").path;
  const Run r = s.run("check --data " + test::shell_word(p));
  CHECK(r.code == 1);
  CHECK(r.out.find("  error   CQ-DATA-SCALE at tensor 'p.weight_scale': values must be finite and > 0, read as F32: "
                   "67108865 of 67108865 fail, the first at index 0 is 0.0") != std::string::npos);
  CHECK(r.out.find("not checked") == std::string::npos);
  const Run j = s.run("check --data --json " + test::shell_word(p));
  CHECK(j.out.find(R"("complete":true,"unchecked":[])") != std::string::npos);
}

// What --data cannot read is still listed, and a consumer that loads the
// file names it: here another process cuts the file while --data streams it
// (the open observer truncates it right after --data's open took its size),
// so the first 1 MiB piece of the scale finds nothing: an I/O error, not a
// crash (a mapped file would have raised SIGBUS here).
TEST_CASE("unchecked: check --data lists a tensor it cannot read, a loading consumer says it", "[reports]") {
  Scratch s;
  const BigScaleFile big = big_scale_fp8(s, "cut_scale.safetensors");
  const auto p = big.path;
  static std::string path;
  static int opens = 0;
  static std::uint64_t keep = 0;
  path = p;
  opens = 0;
  keep = big.before_scale;
  // Opens: the header, the markers, then --data's: cut at that one.
  set_open_observer([](const std::string& at) {
    if (at == path && ++opens == 3) std::filesystem::resize_file(at, keep);
  });
  CheckOptions o;
  o.data = true;
  HeaderParser parser;
  const std::vector<FileReport> reports = check_paths({p}, o, parser);
  set_open_observer(nullptr);
  REQUIRE(opens == 3);
  REQUIRE(reports.size() == 1);
  const std::string what = "data rules of tensor 'p.weight_scale'";
  const std::string out = render_check_text(reports, Profile::Strict);
  INFO(out);
  CHECK(out.ends_with("  not checked: " + what + " (the file cannot be read: the file shrank while being read: "
                      "expected 1048576 bytes at offset 514, found 0)\n"
                      "  verdict safetensors: loads\n"
                      "  verdict sglang: loads (config ComfyFp8Config); not checked: " + what + "\n"
                      "  verdict comfyui: loads; not checked: " + what + "\n"
                      "  verdict kitchen: loads; not checked: " + what + "\n"
                      "  note: every consumer loads this file as it is; strict fails it for rules no consumer "
                      "enforces, which guard against: CQ-FP8-SCALE (an fp8 layer's weight_scale and input_scale are "
                      "single-element floats)\n"));
  const std::string json = render_check_json(reports, Profile::Strict);
  CHECK(json.find(R"("complete":false,"unchecked":[{"what":")" + what +
                  R"(","why":"the file cannot be read: the file shrank while being read: expected 1048576 bytes at )"
                  R"(offset 514, found 0"}],)") !=
        std::string::npos);
  CHECK(json.find(R"("config":"ComfyFp8Config","mis_loads":[],"warns":[],"alternatives":[],"assumes":[],)"
                  R"("unchecked":[")" + what + R"("],"file":null})") != std::string::npos);
}
