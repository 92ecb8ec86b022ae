// No silent limits (issue 11 follow-up): what a check could not look at is
// listed ("complete", "unchecked", "not checked:"), and one cause gives one
// error: a truncated file is ST-BUFFER-TRUNCATED, its unreadable marker is
// unchecked, not missing.
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "props/catch.hpp"
#include "props/gen/file_bytes.hpp"
#include "props/unit_support.hpp"

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

TEST_CASE("unchecked: a truncated file is one error; its unreadable marker is not checked, not missing", "[reports]") {
  Scratch s;
  const auto p = s.file("cut.safetensors", truncated_fp8());
  const Run r = s.run("check " + test::shell_word(p));
  CHECK(r.code == 1);
  const std::string sg = "rejects (SafetensorError: Error while deserializing header: incomplete metadata, file not "
                         "fully covered)\n";
  CHECK(r.out == p + ": FAIL (1 error, 0 warnings, profile strict)\n"
                     "  error   ST-BUFFER-TRUNCATED at byte 476: expected a byte buffer of 286 bytes (the last "
                     "tensor's end), found 260 bytes: the file is 26 bytes short [reference: MetadataIncompleteBuffer] "
                     "[sglang: rejects, comfyui: rejects, kitchen: rejects]\n"
                     "  not checked: marker tensor 'p.comfy_quant' (26 bytes at data_offsets [260, 286], which lie "
                     "outside the file)\n"
                     "  verdict safetensors: rejects (MetadataIncompleteBuffer: incomplete metadata, file not fully "
                     "covered)\n"
                     "  verdict sglang: " + sg + "  verdict comfyui: " + sg + "  verdict kitchen: " + sg);
  const Run j = s.run("check --json " + test::shell_word(p));
  CHECK(j.out.find(R"("complete":false,"unchecked":[{"what":"marker tensor 'p.comfy_quant'","why":"26 bytes at )"
                   R"(data_offsets [260, 286], which lie outside the file"}],"consumers":)") != std::string::npos);
  // The whole file: complete, nothing unchecked, and no finding at all.
  std::vector<std::uint8_t> whole = truncated_fp8();
  whole.insert(whole.end(), kMarker.begin(), kMarker.end());
  const auto w = s.file("whole.safetensors", whole);
  const Run ok = s.run("check --json " + test::shell_word(w));
  CHECK(ok.code == 0);
  CHECK(ok.out.find(R"("findings":[],"complete":true,"unchecked":[],"consumers":)") != std::string::npos);
}
