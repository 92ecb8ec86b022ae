#include "tools/corpus_seeds.hpp"

#include <string_view>

#include "gen/file_bytes.hpp"

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

namespace safespec::tools {

std::vector<NamedFile> marker_seeds() {
  std::vector<NamedFile> s;
  auto add = [&](std::string name, std::string_view text) {
    s.emplace_back(std::move(name), std::vector<std::uint8_t>(text.begin(), text.end()));
  };
  // Each format's marker, json.dumps style (M2).
  add("valid_float8_e4m3fn", R"({"format": "float8_e4m3fn"})");
  add("valid_float8_e4m3fn_full_precision", R"({"format": "float8_e4m3fn", "full_precision_matrix_mult": true})");
  add("valid_float8_e5m2", R"({"format": "float8_e5m2"})");
  add("valid_nvfp4", R"({"format": "nvfp4", "full_precision_matrix_mult": true})");
  add("valid_mxfp8", R"({"format": "mxfp8"})");
  add("valid_int8_tensorwise", R"({"format": "int8_tensorwise"})");
  add("valid_int8_convrot", R"({"format": "int8_tensorwise", "convrot": true, "convrot_groupsize": 256})");
  add("valid_convrot_w4a4", R"({"format": "convrot_w4a4", "convrot_groupsize": 64, "linear_dtype": "int8"})");
  add("valid_asym_w4a8_int8", R"({"format": "asym_w4a8_int8", "group_size": 16, "convrot_groupsize": 256, "convrot": true})");
  add("valid_asym_w4a8_int8_comfyui", R"({"format": "asym_w4a8_int8", "group_size": 16, "convrot_groupsize": 256})");
  add("valid_awq_w4a16", R"({"format": "awq_w4a16", "group_size": 64})");
  add("valid_moe_bank", R"({"format": "float8_e4m3fn", "num_experts": 8})");
  add("valid_params_nested", R"({"format": "int8_tensorwise", "params": {"convrot": true, "convrot_groupsize": 64}})");
  add("valid_compact_separators", R"({"format":"asym_w4a8_int8","convrot":true})");
  // Whole _quantization_metadata documents (M5).
  add("metadata_w4a8", R"({"format_version": "1.0", "layers": {"blk.0": {"format": "asym_w4a8_int8", "convrot": true}}})");
  add("metadata_two_layers", R"({"format_version": "1.0", "layers": {"blk.0": {"format": "nvfp4", "full_precision_matrix_mult": true}, "blk.1": {"format": "int8_tensorwise", "convrot": true, "convrot_groupsize": 64}}})");
  add("metadata_no_layers", R"({"format_version": "1.0"})");
  add("metadata_layers_list", R"({"layers": [{"format": "nvfp4"}]})");
  add("metadata_layer_not_object", R"({"layers": {"blk.0": "nvfp4"}})");
  add("metadata_layer_name_quote", R"({"layers": {"blk'\"\\\u00e9": {"format": "float8_e4m3fn"}}})");
  // Not JSON, or not an object (M3, M4).
  add("broken_not_json", R"({format: "nvfp4"})");
  add("broken_empty", "");
  add("broken_truncated", R"({"format": "nvfp4")");
  add("broken_trailing_data", R"({"format": "nvfp4"} {})");
  add("broken_nul_padding", std::string_view("{\"format\": \"nvfp4\"}\0\0\0", 22));
  add("broken_not_object_list", R"(["nvfp4"])");
  add("broken_not_object_string", R"("nvfp4")");
  add("broken_not_object_null", "null");
  add("broken_format_null", R"({"format": null})");
  add("broken_format_missing", R"({"group_size": 16})");
  add("broken_format_list", R"({"format": ["nvfp4"]})");
  add("broken_format_unknown", R"({"format": "int8_blockwise"})");
  add("broken_format_empty", R"({"format": ""})");
  add("broken_duplicate_key", R"({"format": "nvfp4", "format": "asym_w4a8_int8", "convrot": true})");
  // Numbers Python reads its own way (§6.10-§6.11).
  add("number_nan", R"({"format": "asym_w4a8_int8", "group_size": NaN, "convrot": true})");
  add("number_infinity", R"({"format": "asym_w4a8_int8", "group_size": Infinity, "convrot": true})");
  add("number_1e400", R"({"format": "convrot_w4a4", "convrot_groupsize": 1e400})");
  add("number_huge_int", R"({"format": "asym_w4a8_int8", "group_size": 1180591620717411303424, "convrot": true})");
  add("number_4301_digits", "{\"format\": \"asym_w4a8_int8\", \"group_size\": " + std::string(4301, '7') + "}");
  add("number_negative_zero", R"({"format": "convrot_w4a4", "convrot_groupsize": -0})");
  for (const auto& [name, value] : std::initializer_list<std::pair<const char*, const char*>>{
           {"group_size_string", "\"16\""}, {"group_size_float", "16.0"}, {"group_size_true", "true"},
           {"group_size_null", "null"},     {"group_size_zero", "0"},     {"group_size_minus_one", "-1"},
           {"group_size_x", "\"x\""},       {"group_size_spaces", "\" 16 \""}, {"group_size_16_7", "16.7"}})
    add(name, std::string(R"({"format": "asym_w4a8_int8", "group_size": )") + value +
                  R"(, "convrot_groupsize": 256, "convrot": true})");
  add("convrot_one", R"({"format": "asym_w4a8_int8", "convrot": 1})");
  add("convrot_string", R"({"format": "int8_tensorwise", "convrot": "true", "convrot_groupsize": 64})");
  add("convrot_groupsize_zero", R"({"format": "int8_tensorwise", "convrot": true, "convrot_groupsize": 0})");
  add("linear_dtype_int", R"({"format": "convrot_w4a4", "linear_dtype": 4})");
  // Nesting around CPython's limit (995 accepted at top level, §python_json).
  add("deep_995", std::string(995, '[') + std::string(995, ']'));
  add("deep_996", std::string(996, '[') + std::string(996, ']'));
  add("deep_in_object", R"({"format": "nvfp4", "x": )" + std::string(1200, '[') + std::string(1200, ']') + "}");
  // Encodings json.loads(bytes) detects (M3).
  add("encoding_utf8_bom", "\xef\xbb\xbf{\"format\": \"nvfp4\"}");
  std::string utf16le = "\xff\xfe";
  for (char c : std::string_view(R"({"format": "nvfp4"})")) utf16le += std::string{c, '\0'};
  add("encoding_utf16le_bom", utf16le);
  add("encoding_utf16le", utf16le.substr(2));
  std::string utf16be;
  for (char c : std::string_view(R"({"format": "nvfp4"})")) utf16be += std::string{'\0', c};
  add("encoding_utf16be", utf16be);
  std::string utf32le;
  for (char c : std::string_view(R"({"format": "nvfp4"})")) utf32le += std::string{c, '\0', '\0', '\0'};
  add("encoding_utf32le", utf32le);
  add("encoding_not_utf8", "{\"format\": \"nvfp4\xff\"}");
  add("encoding_lone_surrogate_escape", R"({"format": "float8_e4m3fn", "note": "\ud800"})");
  add("encoding_lone_surrogate_bytes", "{\"format\": \"float8_e4m3fn\", \"note\": \"\xed\xa0\x80\"}");
  add("encoding_surrogate_pair", R"({"format": "float8_e4m3fn", "note": "\ud83d\ude00"})");
  add("encoding_non_ascii_raw", "{\"format\": \"float8_e4m3fn\", \"note\": \"caf\xc3\xa9\"}");
  return s;
}

}  // namespace safespec::tools
