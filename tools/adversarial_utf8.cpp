// Invalid UTF-8 of every class (F5 for header text, CQ-MARKER-ENCODING for a
// marker tensor's bytes), in every place text lives: a tensor name, a
// __metadata__ key and value, the _quantization_metadata string, and a
// P.comfy_quant tensor. Committed under corpus/adversarial/.
#include <string>

#include "tools/adversarial_cases.hpp"
#include "tools/adversarial_support.hpp"

namespace safespec::tools {

namespace {

struct BadUtf8 {
  const char* name;
  const char* what;
  std::string bytes;
};

// The classes of ill-formed UTF-8 (Unicode Table 3-7 says what is well formed).
std::vector<BadUtf8> bad_utf8() {
  return {
      {"overlong2", "overlong 2-byte C0 AF ('/')", "\xC0\xAF"},
      {"overlong3", "overlong 3-byte E0 80 AF", "\xE0\x80\xAF"},
      {"overlong4", "overlong 4-byte F0 80 80 AF", "\xF0\x80\x80\xAF"},
      {"surrogate", "an encoded surrogate ED A0 80 (U+D800)", "\xED\xA0\x80"},
      {"above_10ffff", "F4 90 80 80 (U+110000)", "\xF4\x90\x80\x80"},
      {"byte_f5", "the byte F5 (never in UTF-8)", "\xF5\x80\x80\x80"},
      {"byte_ff", "the byte FF", "\xFF"},
      {"lone_continuation", "a lone continuation byte 80", "\x80"},
      {"truncated", "a 3-byte sequence cut after 2 bytes (E2 82)", "\xE2\x82"},
  };
}

AdversarialCase header_case(const std::string& name, const std::string& what, const std::string& header,
                            std::size_t bad_at) {
  return {name, Origin::Committed, what,
          fail("ST-HEADER-UTF8", "byte " + std::to_string(bad_at), "UTF-8"),
          [header](const std::string& path) { return write_safetensors(path, header); }};
}

}  // namespace

void add_utf8_cases(std::vector<AdversarialCase>& out) {
  const std::string valid = entry("x", "U8", "[0]", "[0,0]");
  for (const BadUtf8& b : bad_utf8()) {
    const std::string cls = b.name;
    // F5: the whole header must be UTF-8, whatever the byte is part of.
    {
      const std::string head = "{\"a";
      out.push_back(header_case("F5_utf8_" + cls + "_in_tensor_name.safetensors",
                                std::string("a tensor name containing ") + b.what,
                                pad8(head + b.bytes + "\":{\"dtype\":\"U8\",\"shape\":[0],\"data_offsets\":[0,0]}}"),
                                8 + head.size()));
    }
    {
      const std::string head = "{\"__metadata__\":{\"k";
      out.push_back(header_case("F5_utf8_" + cls + "_in_metadata_key.safetensors",
                                std::string("a __metadata__ key containing ") + b.what,
                                pad8(head + b.bytes + "\":\"v\"}," + valid + "}"), 8 + head.size()));
    }
    {
      const std::string head = "{\"__metadata__\":{\"k\":\"v";
      out.push_back(header_case("F5_utf8_" + cls + "_in_metadata_value.safetensors",
                                std::string("a __metadata__ value containing ") + b.what,
                                pad8(head + b.bytes + "\"}," + valid + "}"), 8 + head.size()));
    }
    {
      const std::string head = "{\"__metadata__\":{\"_quantization_metadata\":\"{\\\"format_version\\\":\\\"1.0\\\",\\\"layers\\\":{\\\"l";
      out.push_back(header_case("F5_utf8_" + cls + "_in_quantization_metadata.safetensors",
                                std::string("a layer name in _quantization_metadata containing ") + b.what,
                                pad8(head + b.bytes + "\\\":{\\\"format\\\":\\\"float8_e4m3fn\\\"}}}\"}," + valid + "}"),
                                8 + head.size()));
    }
    {
      // The header is fine; json.loads decodes the marker's bytes as UTF-8
      // with surrogatepass (comfy-quant-markers.md), so every class is a
      // UnicodeDecodeError except an encoded surrogate, which decodes and
      // makes the format name unknown.
      const auto marked = marked_fp8_layer("{\"format\":\"float8_e4m3fn" + b.bytes + "\"}");
      out.push_back({"C_utf8_" + cls + "_in_comfy_quant_tensor.safetensors", Origin::Committed,
                     std::string("a P.comfy_quant marker tensor containing ") + b.what,
                     cls == "surrogate"
                         ? fail("CQ-FORMAT-UNKNOWN", "layer 'l'", "found 'float8_e4m3fn\\ud800'", 2)
                         : fail("CQ-MARKER-JSON", "tensor 'l.comfy_quant'", "UnicodeDecodeError: 'utf-8' codec", 2),
                     [marked](const std::string& path) { return write_safetensors(path, marked.first, marked.second); }});
    }
  }
  // JSON escapes can spell a lone surrogate with valid UTF-8 bytes: F5 holds,
  // serde_json refuses the escape (F6).
  out.push_back({"F6_escaped_lone_surrogate_in_tensor_name.safetensors", Origin::Committed,
                 "a tensor name with the escape \\ud800 (a lone surrogate)",
                 fail("ST-JSON-SYNTAX", "byte 17", "expected a low surrogate escape"), [](const std::string& path) {
                   return write_safetensors(path, pad8("{\"a\\ud800\":{\"dtype\":\"U8\",\"shape\":[0],\"data_offsets\":[0,0]}}"));
                 }});
}

}  // namespace safespec::tools
