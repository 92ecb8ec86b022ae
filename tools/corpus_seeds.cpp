#include "tools/corpus_seeds.hpp"

#include <string_view>

#include "props/gen/file_bytes.hpp"

namespace safespec::tools {

namespace {
constexpr std::string_view kTest = R"({"test":{"dtype":"I32","shape":[2,2],"data_offsets":[0,16]}})";
}

std::vector<NamedFile> hand_written_seeds() {
  using gen::file_with_header;
  using gen::file_with_length;
  std::vector<NamedFile> s;
  auto add = [&](std::string name, std::vector<std::uint8_t> bytes) { s.emplace_back(std::move(name), std::move(bytes)); };
  // §9 upstream vectors.
  add("accept_upstream_deserialization", file_with_header(kTest, 16));
  add("accept_upstream_scalar", file_with_header(R"({"test":{"dtype":"I32","shape":[],"data_offsets":[0,4]}})", 4));
  add("accept_upstream_zero_sized", file_with_header(R"({"test":{"dtype":"I32","shape":[2,0],"data_offsets":[0,0]}})"));
  add("accept_upstream_whitespace_padded", file_with_header("{}\r \t\n"));
  add("accept_upstream_leading_whitespace", file_with_header("\t\n{}\r "));
  add("accept_metadata", file_with_header(R"({"__metadata__":{"format":"pt","a":"b"},"w":{"dtype":"F16","shape":[2],"data_offsets":[0,4]}})", 4));
  add("accept_metadata_null", file_with_header(R"({"__metadata__":null})"));
  add("accept_escaped_keys", file_with_header(R"({"\u005f_metadata__":{"k":"v"},"a\u0000b":{"\u0064type":"F\u0033\u0032","shape":[1],"data_offsets":[0,4]}})", 4));
  add("accept_unknown_field", file_with_header(R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1],"extra":[1.5,{"x":null}]}})", 1));
  add("accept_f4_pair", file_with_header(R"({"a":{"dtype":"F4","shape":[1,2],"data_offsets":[0,1]}})", 1));
  add("accept_f6_four", file_with_header(R"({"a":{"dtype":"F6_E3M2","shape":[4],"data_offsets":[0,3]}})", 3));
  add("accept_zero_product_overflow_order", file_with_header(R"({"a":{"dtype":"U64","shape":[0,18446744073709551615],"data_offsets":[0,0]}})"));
  add("accept_duplicate_tensor_last_wins", file_with_header(R"({"a":{"dtype":"U8","shape":[9],"data_offsets":[0,9]},"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]}})", 2));
  add("accept_duplicate_metadata_key", file_with_header(R"({"__metadata__":{"k":"1","k":"2"}})"));
  add("accept_surrogate_pair", file_with_header(R"({"\ud83d\ude00":{"dtype":"BOOL","shape":[1],"data_offsets":[0,1]}})", 1));
  // F1-F5.
  add("reject_F1_header_too_small", {0x3c, 0, 0});
  add("reject_F3_header_too_large", {0x3c, 0, 0, 0, 0, 0xff, 0xff, 0xff});
  add("reject_F3_length_max", file_with_length(~std::uint64_t{0}, "{}"));
  add("reject_F4_invalid_header_length", file_with_length(60, ""));
  add("reject_F5_non_utf8", file_with_header("\xff"));
  add("reject_F5_overlong", file_with_header("{\"\xc0\x80\":1}"));
  // F6.
  add("reject_F6_not_json", file_with_header("{"));
  add("reject_F6_empty_header", file_with_header(""));
  add("reject_F6_trailing", file_with_header("{}{}"));
  add("reject_F6_nul_padding", file_with_header(std::string_view("{}\0", 3)));
  add("reject_F6_bom", file_with_header("\xef\xbb\xbf{}"));
  add("reject_F6_not_object", file_with_header("[]"));
  add("reject_F6_trailing_comma", file_with_header(R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},})", 1));
  add("reject_F6_lone_surrogate", file_with_header(R"({"\ud800":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}})", 1));
  add("reject_F6_depth", file_with_header(R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1],"x":)" +
                                          std::string(200, '[') + std::string(200, ']') + "}}", 1));
  add("reject_F6_metadata_duplicate", file_with_header(R"({"__metadata__":{},"__metadata__":{}})"));
  add("reject_F6_metadata_int", file_with_header(R"({"__metadata__":{"k":1}})"));
  add("reject_F6_missing_dtype", file_with_header(R"({"a":{"shape":[1],"data_offsets":[0,1]}})", 1));
  add("reject_F6_duplicate_field", file_with_header(R"({"a":{"dtype":"U8","dtype":"U8","shape":[1],"data_offsets":[0,1]}})", 1));
  add("reject_F6_unknown_dtype", file_with_header(R"({"a":{"dtype":"f32","shape":[1],"data_offsets":[0,4]}})", 4));
  add("reject_F6_negative_zero", file_with_header(R"({"a":{"dtype":"U8","shape":[-0],"data_offsets":[0,0]}})"));
  add("reject_F6_fraction", file_with_header(R"({"a":{"dtype":"U8","shape":[1.0],"data_offsets":[0,1]}})", 1));
  add("reject_F6_u64_overflow", file_with_header(R"({"a":{"dtype":"U8","shape":[18446744073709551616],"data_offsets":[0,1]}})", 1));
  add("reject_F6_three_offsets", file_with_header(R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1,2]}})", 1));
  // F8-F13.
  add("reject_F8_gap", file_with_header(R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}})", 2));
  add("reject_F8_json_attack", file_with_header(R"({"a":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]},"b":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]}})", 16));
  add("reject_F8_reversed", file_with_header(R"({"a":{"dtype":"U8","shape":[0],"data_offsets":[0,0]},"b":{"dtype":"U8","shape":[1],"data_offsets":[0,18446744073709551615]}})"));
  add("reject_F9_overflow", file_with_header(R"({"a":{"dtype":"U64","shape":[2,18446744073709551614],"data_offsets":[0,0]}})"));
  add("reject_F9_overflow_before_zero", file_with_header(R"({"a":{"dtype":"U64","shape":[4294967296,4294967296,0],"data_offsets":[0,0]}})"));
  add("reject_F10_nbits_overflow", file_with_header(R"({"a":{"dtype":"I32","shape":[2,9223372036854775807],"data_offsets":[0,0]}})"));
  add("reject_F11_f4_odd", file_with_header(R"({"a":{"dtype":"F4","shape":[3],"data_offsets":[0,2]}})", 2));
  add("reject_F12_invalid_info", file_with_header(R"({"test":{"dtype":"I32","shape":[2,2],"data_offsets":[0,4]}})"));
  add("reject_F13_polyglot", file_with_header(kTest, 16 + 34));
  add("reject_F13_truncated", file_with_header(kTest, 14));
  add("reject_F13_offsets_at_limit", file_with_header(R"({"a":{"dtype":"U8","shape":[18446744073709551615],"data_offsets":[0,18446744073709551615]}})"));
  return s;
}

}  // namespace safespec::tools
