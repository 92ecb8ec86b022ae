// Hand-written byte strings for the corners of safetensors-format.md: text
// rules (F1-F6, X1, X2), escapes (F6.5, X22), duplicate keys of every kind
// (X3), zero-sized tensors and scalars (X6, PR #208), sub-byte dtypes (§4.1),
// the F9 fold order (§2.1), offsets at the u64 limits (§2.2), the header
// length limit (F3, X16), the positions safespec takes where the written
// spec is silent (docs/design.md), and the upstream tests and issues of §8-§9.
#include <string>

#include "conformance/suite_parts.hpp"

namespace safespec::conformance::detail {

namespace {

using enum RuleId;

// The header padded with spaces so 8 + N is a multiple of 8 (W5): no
// ST-HEADER-UNALIGNED warning unless a case wants one.
std::string pad(std::string h) {
  while (h.size() % 8) h += ' ';
  return h;
}

std::string u8(const std::string& name, std::uint64_t begin, std::uint64_t end) {
  return "\"" + name + "\":{\"dtype\":\"U8\",\"shape\":[" + std::to_string(end - begin) + "],\"data_offsets\":[" +
         std::to_string(begin) + "," + std::to_string(end) + "]}";
}

std::string entry(const std::string& dtype, const std::string& shape, const std::string& offsets) {
  return "{\"dtype\":\"" + dtype + "\",\"shape\":" + shape + ",\"data_offsets\":" + offsets + "}";
}

// One tensor "t" with raw dtype/shape/offsets texts and n data bytes, padded.
Bytes one(const std::string& dtype, const std::string& shape, const std::string& offsets, std::size_t n) {
  return with_header(pad("{\"t\":" + entry(dtype, shape, offsets) + "}"), zeros(n));
}

constexpr const char* kUpstreamTest = R"({"test":{"dtype":"I32","shape":[2,2],"data_offsets":[0,16]}})";
constexpr const char* kMax = "18446744073709551615";  // 2^64 - 1

class Drafts {
 public:
  void add(std::string name, std::string description, Bytes bytes, std::vector<RuleId> rules = {},
           std::vector<RuleId> writer_only = {}) {
    out.push_back(Draft{std::move(name) + ".safetensors", std::move(description), std::move(bytes), {}, std::move(rules),
                        std::move(writer_only)});
  }
  std::vector<Draft> out;
};

void whitespace(Drafts& d) {
  d.add("accept_X2_trailing_spaces", "the header {} padded with six spaces (W5)", with_header("{}      "));
  d.add("accept_ST-HEADER-UNALIGNED_upstream_whitespace_padded_header",
        "upstream test_whitespace_padded_header: N = 6, {}\\r \\t\\n (F6.1: any JSON whitespace pads)",
        with_header("{}\r \t\n"), {HeaderUnaligned});
  d.add("accept_ST-HEADER-LEADING-SPACE_upstream_whitespace_leading_padded_header",
        "upstream test_whitespace_leading_padded_header: N = 6, \\t\\n{}\\r (X1: the reference accepts leading "
        "whitespace since PR #686; strict warns)",
        with_header("\t\n{}\r "), {HeaderLeadingSpace, HeaderUnaligned});
  d.add("accept_ST-HEADER-LEADING-SPACE_all_four_whitespace_before_object",
        "SP, TAB, CR, LF before '{' (X1) and spaces after it", with_header(pad(" \t\r\n{\"a\":" + entry("U8", "[1]", "[0,1]") + "}"), zeros(1)),
        {HeaderLeadingSpace});
  d.add("accept_X2_tab_cr_lf_padding_after_object", "a tensor, then TAB, CR and LF as padding (F6.1; X25: parsers that "
        "accept only 0x20 padding reject it)", with_header(pad("{" + u8("a", 0, 1) + "}\t\r\n"), zeros(1)));
  d.add("accept_X2_whitespace_between_tokens", "JSON whitespace between every token of the header (F6.1)",
        with_header(pad("{ \"a\" :\n\t{ \"dtype\" : \"U8\" ,\r\n \"shape\" : [ 2 ] , \"data_offsets\" : [ 0 , 2 ] } }"),
                    zeros(2)));
  d.add("reject_ST-JSON-SYNTAX_nul_padding", "the header {} padded with NUL bytes (X2; X25: RuView #1522 accepts NUL padding)",
        with_header(std::string("{}\0\0\0\0\0\0", 8)), {JsonSyntax});
  d.add("reject_ST-JSON-SYNTAX_form_feed_padding", "padding with form feed, not JSON whitespace (F6.1)",
        with_header("{}\f     "), {JsonSyntax});
  d.add("reject_ST-JSON-SYNTAX_vertical_tab_before_object", "a vertical tab before '{', not JSON whitespace (F6.1)",
        with_header("\v{}     "), {JsonSyntax});
  d.add("reject_ST-JSON-SYNTAX_no_break_space_padding", "U+00A0 (valid UTF-8, not JSON whitespace) as padding (F6.1)",
        with_header("{}\xc2\xa0    "), {JsonSyntax});
  d.add("reject_ST-JSON-SYNTAX_utf8_bom", "a UTF-8 byte order mark before '{' (serde_json does not skip it)",
        with_header("\xef\xbb\xbf{}   "), {JsonSyntax});
  d.add("reject_ST-HEADER-UTF8_invalid_byte_in_padding", "0xFF inside the padding: F5 covers all N bytes",
        with_header("{}   \xff  "), {HeaderUtf8});
  d.add("reject_ST-HEADER-UTF8_upstream_non_utf8", "upstream test_invalid_header_non_utf8: N = 1, byte 0xFF",
        with_header("\xff"), {HeaderUtf8});
  d.add("reject_ST-HEADER-UTF8_overlong_nul", "an overlong encoding C0 80 of NUL in a key (F5)",
        with_header("{\"\xc0\x80\":1}"), {HeaderUtf8});
  d.add("reject_ST-HEADER-UTF8_encoded_surrogate", "UTF-8 bytes ED A0 80 of a surrogate in a name (F5)",
        with_header(pad("{\"\xed\xa0\x80\":" + entry("U8", "[0]", "[0,0]") + "}")), {HeaderUtf8});
  d.add("reject_ST-JSON-SYNTAX_empty_header", "N = 0: serde_json's EOF while parsing a value (§2.3)", with_header(""),
        {JsonSyntax});
  d.add("reject_ST-JSON-SYNTAX_only_whitespace", "a header of eight spaces", with_header("        "), {JsonSyntax});
  d.add("reject_ST-JSON-SYNTAX_upstream_not_json", "upstream test_invalid_header_not_json: N = 1, '{'", with_header("{"),
        {JsonSyntax});
  d.add("reject_ST-JSON-SYNTAX_two_objects", "two JSON objects: {}{}", with_header("{}{}    "), {JsonSyntax});
  d.add("reject_ST-JSON-SYNTAX_trailing_comma", "a trailing comma after the last member",
        with_header(pad("{" + u8("a", 0, 1) + ",}"), zeros(1)), {JsonSyntax});
  d.add("reject_ST-JSON-SYNTAX_comment", "a /* comment */ in the header", with_header(pad("{/* c */}")), {JsonSyntax});
  d.add("reject_ST-JSON-SYNTAX_single_quoted_key", "a single-quoted key", with_header(pad("{'a':{}}")), {JsonSyntax});
}

void escapes(Drafts& d) {
  d.add("accept_F6.5_escaped_name", "a tensor name with every JSON escape: \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u00e9 and a "
        "surrogate pair (F6.5)",
        with_header(pad("{\"a\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00\":" + entry("U8", "[1]", "[0,1]") + "}"), zeros(1)));
  d.add("accept_F6.5_escaped_field_keys_and_dtype", "dtype, shape and data_offsets spelled with \\u escapes, and the dtype "
        "value F\\u0033\\u0032 (F6.5: keys and values are compared after unescaping)",
        with_header(pad("{\"a\":{\"\\u0064type\":\"F\\u0033\\u0032\",\"sh\\u0061pe\":[1],\"data_o\\u0066fsets\":[0,4]}}"),
                    zeros(4)));
  d.add("accept_F6.5_escaped_metadata_key", "the key \\u005f_metadata__ is __metadata__ (F6.5, F6.7)",
        with_header(pad("{\"\\u005f_metadata__\":{\"k\\u00e9\":\"v\\n\"}}")));
  d.add("accept_X22_nul_in_name", "a tensor name with an escaped NUL, a\\u0000b (X22)",
        with_header(pad("{\"a\\u0000b\":" + entry("U8", "[1]", "[0,1]") + "}"), zeros(1)));
  d.add("accept_X22_empty_name", "a tensor named \"\" (X22)", with_header(pad("{\"\":" + entry("U8", "[1]", "[0,1]") + "}"), zeros(1)));
  d.add("accept_X22_raw_non_ascii_name", "a tensor name in raw UTF-8, 4-byte sequence included",
        with_header(pad("{\"caf\xc3\xa9\xf0\x9f\x98\x80\":" + entry("U8", "[1]", "[0,1]") + "}"), zeros(1)));
  d.add("reject_ST-JSON-SYNTAX_lone_high_surrogate", "an escaped lone surrogate \\ud800 in a name (X22)",
        with_header(pad("{\"\\ud800\":" + entry("U8", "[1]", "[0,1]") + "}"), zeros(1)), {JsonSyntax});
  d.add("reject_ST-JSON-SYNTAX_lone_low_surrogate", "an escaped lone low surrogate \\udc00 in a metadata value",
        with_header(pad("{\"__metadata__\":{\"k\":\"\\udc00\"}}")), {JsonSyntax});
  d.add("reject_ST-JSON-SYNTAX_raw_control_in_name", "a raw 0x01 byte inside a string (F6.2: controls must be escaped)",
        with_header(pad("{\"a\x01\":" + entry("U8", "[1]", "[0,1]") + "}"), zeros(1)), {JsonSyntax});
  d.add("reject_ST-JSON-SYNTAX_unknown_escape", "the escape \\x, which JSON does not have",
        with_header(pad("{\"a\\x41\":" + entry("U8", "[1]", "[0,1]") + "}"), zeros(1)), {JsonSyntax});
  d.add("reject_ST-JSON-SYNTAX_short_unicode_escape", "\\u12 followed by a quote",
        with_header(pad("{\"a\\u12\":" + entry("U8", "[1]", "[0,1]") + "}"), zeros(1)), {JsonSyntax});
  d.add("accept_X11_uppercase_metadata_is_a_tensor", "a tensor named __METADATA__ (X11: only the exact key is metadata)",
        with_header(pad("{\"__METADATA__\":" + entry("U8", "[1]", "[0,1]") + "}"), zeros(1)));
  d.add("reject_ST-TENSOR-FIELD-MISSING_X11_uppercase_metadata_object", "__METADATA__ holding {\"k\":\"v\"}: a tensor entry "
        "without dtype (X11)", with_header(pad("{\"__METADATA__\":{\"k\":\"v\"}}")), {TensorFieldMissing});
}

void duplicates(Drafts& d) {
  d.add("reject_ST-DUPLICATE-TENSOR_last_wins_and_tiles", "the name 'a' twice; the reference keeps the last, which tiles "
        "the buffer, and accepts (X3, F6.16); strict rejects every duplicate",
        with_header(pad("{" + u8("a", 0, 9) + "," + u8("a", 0, 2) + "}"), zeros(2)), {DuplicateTensor});
  d.add("reject_ST-DUPLICATE-TENSOR_issue_401_survivor_does_not_tile", "the name 'a' twice, the survivor leaves bytes "
        "uncovered: the reference rejects with MetadataIncompleteBuffer (issue #401)",
        with_header(pad("{" + u8("a", 0, 2) + "," + u8("a", 0, 9) + "}"), zeros(2)), {BufferTruncated, DuplicateTensor});
  d.add("reject_ST-DUPLICATE-TENSOR-ESCAPED_a_and_u0061", "tensor names \"a\" and \"\\u0061\": one name after unescaping (F6.5, X3)",
        with_header(pad("{" + u8("a", 0, 1) + ",\"\\u0061\":" + entry("U8", "[1]", "[0,1]") + "}"), zeros(1)),
        {DuplicateTensorEscaped});
  d.add("reject_ST-METADATA-DUPLICATE_twice", "__metadata__ twice (F6.8)",
        with_header(pad("{\"__metadata__\":{},\"__metadata__\":{}}")), {MetadataDuplicate});
  d.add("reject_ST-METADATA-DUPLICATE_escaped_second", "__metadata__ and \\u005f_metadata__ (F6.5, F6.8)",
        with_header(pad("{\"__metadata__\":{\"a\":\"b\"},\"\\u005f_metadata__\":{}}")), {MetadataDuplicate});
  d.add("reject_ST-DUPLICATE-METADATA-KEY_last_wins", "the metadata key k twice; the reference keeps the last (F6.9, X3)",
        with_header(pad("{\"__metadata__\":{\"k\":\"1\",\"k\":\"2\"}}")), {DuplicateMetadataKey});
  d.add("reject_ST-DUPLICATE-METADATA-KEY_escaped", "metadata keys k and \\u006b (F6.5, X3)",
        with_header(pad("{\"__metadata__\":{\"k\":\"1\",\"\\u006b\":\"1\"}}")), {DuplicateMetadataKey});
  for (const char* field : {"dtype", "shape", "data_offsets"}) {
    const std::string value = std::string(field) == "dtype" ? "\"U8\"" : std::string(field) == "shape" ? "[1]" : "[0,1]";
    d.add(std::string("reject_ST-TENSOR-FIELD-DUPLICATE_") + field + "_twice",
          std::string("the tensor field ") + field + " twice, same value (F6.11)",
          with_header(pad("{\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1],\"" + std::string(field) + "\":" +
                          value + "}}"),
                      zeros(1)),
          {TensorFieldDuplicate});
  }
  d.add("reject_ST-TENSOR-FIELD-DUPLICATE_escaped_dtype", "dtype and \\u0064type in one tensor entry (F6.5, F6.11)",
        with_header(pad("{\"a\":{\"dtype\":\"U8\",\"\\u0064type\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]}}"), zeros(1)),
        {TensorFieldDuplicate});
  d.add("reject_ST-DUPLICATE-NESTED-KEY_unknown_field_twice", "the unknown field x twice in a tensor entry (X3, X19)",
        with_header(pad("{\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1],\"x\":1,\"x\":2}}"), zeros(1)),
        {DuplicateNestedKey, TensorUnknownField});
  d.add("reject_ST-DUPLICATE-NESTED-KEY_inside_unknown_value", "a repeated key inside an unknown field's object value (X3)",
        with_header(pad("{\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1],\"x\":[{\"k\":1,\"k\":2}]}}"), zeros(1)),
        {DuplicateNestedKey, TensorUnknownField});
}

void shapes_and_dtypes(Drafts& d) {
  d.add("accept_ST-HEADER-UNALIGNED_upstream_deserialization", "upstream test_deserialization and the doc example: N = 60, I32 [2,2], 16 bytes; "
        "8 + N is not a multiple of 8, so strict warns", with_header(kUpstreamTest, zeros(16)), {HeaderUnaligned});
  d.add("accept_upstream_empty_shapes_allowed", "upstream test_empty_shapes_allowed: an I32 scalar, N = 56",
        with_header(R"({"test":{"dtype":"I32","shape":[],"data_offsets":[0,4]}})", zeros(4)));
  d.add("accept_ST-HEADER-UNALIGNED_upstream_zero_sized_tensor", "upstream test_zero_sized_tensor: I32 [2,0] at [0,0], N = 60",
        with_header(R"({"test":{"dtype":"I32","shape":[2,0],"data_offsets":[0,0]}})"), {HeaderUnaligned});
  d.add("accept_X6_zero_sized_between_tensors", "a zero-sized tensor at [k,k] between two others, k the cursor (X6; PR #205 / #221)",
        with_header(pad("{" + u8("a", 0, 2) + ",\"z\":" + entry("F32", "[0,7]", "[2,2]") + "," + u8("b", 2, 3) + "}"), zeros(3)));
  d.add("accept_X6_zero_sized_share_offset_at_start_and_end", "three zero-sized tensors sharing k = 0 and two at the end",
        with_header(pad("{\"z1\":" + entry("U8", "[0]", "[0,0]") + ",\"z2\":" + entry("F64", "[3,0]", "[0,0]") + ",\"z3\":" +
                        entry("BF16", "[0]", "[0,0]") + "," + u8("a", 0, 3) + ",\"z4\":" + entry("I64", "[0,0]", "[3,3]") +
                        ",\"z5\":" + entry("U8", "[0]", "[3,3]") + "}"),
                    zeros(3)));
  d.add("accept_X6_only_zero_sized", "only zero-sized tensors and no data bytes",
        with_header(pad("{\"z\":" + entry("F32", "[0]", "[0,0]") + "}")));
  d.add("reject_ST-OFFSET-GAP_zero_sized_off_cursor", "a zero-sized tensor at [5,5] while the cursor is at 1 (X6: k must be "
        "the cursor)", with_header(pad("{" + u8("a", 0, 1) + ",\"z\":" + entry("U8", "[0]", "[5,5]") + "}"), zeros(5)),
        {OffsetGap});
  d.add("accept_PR208_scalars_of_several_dtypes", "rank-0 tensors of BOOL, F64 and BF16 (PR #208: the empty product is 1)",
        with_header(pad("{\"d\":" + entry("F64", "[]", "[0,8]") + ",\"h\":" + entry("BF16", "[]", "[8,10]") + ",\"b\":" +
                        entry("BOOL", "[]", "[10,11]") + "}"),
                    zeros(11)));
  std::string rank1000 = "[";
  for (int i = 0; i < 1000; ++i) rank1000 += i ? ",1" : "1";
  d.add("accept_rank_1000", "a U8 tensor of rank 1000, every dimension 1 (rank is unlimited)",
        one("U8", rank1000 + "]", "[0,1]", 1));
  d.add("accept_F4_pair", "F4 [1,2]: two 4-bit values in one byte (§4.1)", one("F4", "[1,2]", "[0,1]", 1));
  d.add("accept_F6_E2M3_four_in_three_bytes", "F6_E2M3 [4]: 24 bits, 3 bytes (§4.1)", one("F6_E2M3", "[4]", "[0,3]", 3));
  d.add("accept_F6_E3M2_eight_in_six_bytes", "F6_E3M2 [2,4]: 48 bits, 6 bytes (§4.1)", one("F6_E3M2", "[2,4]", "[0,6]", 6));
  d.add("accept_F4_zero_sized", "F4 [0]: zero bits", one("F4", "[0]", "[0,0]", 0));
  d.add("reject_ST-MISALIGNED-BITS_F4_three", "F4 [3]: 12 bits, not whole bytes (F11; upstream "
        "test_serialization_fp4_misaligned)", one("F4", "[3]", "[0,2]", 2), {MisalignedBits});
  d.add("reject_ST-MISALIGNED-BITS_F4_scalar", "an F4 scalar: 4 bits (F11)", one("F4", "[]", "[0,1]", 1), {MisalignedBits});
  d.add("reject_ST-MISALIGNED-BITS_F6_E2M3_two", "F6_E2M3 [2]: 12 bits (F11)", one("F6_E2M3", "[2]", "[0,2]", 2), {MisalignedBits});
  d.add("reject_ST-MISALIGNED-BITS_F6_E3M2_scalar", "an F6_E3M2 scalar: 6 bits (F11)", one("F6_E3M2", "[]", "[0,1]", 1),
        {MisalignedBits});
  d.add("reject_ST-SIZE-MISMATCH_F4_pair_two_bytes", "F4 [1,2] with 2 bytes (upstream test_serialization_fp4_invalid: 1 byte "
        "expected)", one("F4", "[1,2]", "[0,2]", 2), {SizeMismatch});
  // F9 fold order (§2.1).
  d.add("accept_F9_zero_then_max", "U64 [0, 2^64-1]: 1*0 = 0, 0*(2^64-1) = 0, no overflow (§2.1)",
        one("U64", std::string("[0,") + kMax + "]", "[0,0]", 0));
  d.add("accept_F9_max_then_zero", "U64 [2^64-1, 0]: 2^64-1, then *0 = 0 (§2.1)", one("U64", std::string("[") + kMax + ",0]", "[0,0]", 0));
  d.add("accept_F9_zero_first_then_two_2_32", "U64 [0, 2^32, 2^32]: the zero comes first, so every partial product is 0",
        one("U64", "[0,4294967296,4294967296]", "[0,0]", 0));
  d.add("reject_ST-SHAPE-OVERFLOW_two_2_32_then_zero", "U64 [2^32, 2^32, 0]: 2^32*2^32 overflows before the zero (§2.1)",
        one("U64", "[4294967296,4294967296,0]", "[0,0]", 0), {ShapeOverflow});
  d.add("reject_ST-SHAPE-OVERFLOW_upstream_validation_overflow", "upstream test_validation_overflow: U64 [2, 2^64-2]",
        one("U64", "[2,18446744073709551614]", "[0,0]", 0), {ShapeOverflow});
  d.add("reject_ST-NBITS-OVERFLOW_upstream_i32", "upstream test_validation_overflow: I32 [2, 2^63-1]: n fits, n*32 bits does "
        "not (F10)", one("I32", "[2,9223372036854775807]", "[0,0]", 0), {NbitsOverflow});
  d.add("reject_ST-NBITS-OVERFLOW_F4_2_63", "F4 [2^63]: n fits, n*4 bits does not (F10)", one("F4", "[9223372036854775808]", "[0,0]", 0),
        {NbitsOverflow});
  d.add("reject_ST-SIZE-MISMATCH_BOOL_2_61", "BOOL [2^61-1]: n*8 bits fits; 2^61-1 bytes against data_offsets [0,0] (F12)",
        one("BOOL", "[2305843009213693951]", "[0,0]", 0), {SizeMismatch});
}

void offsets_and_lengths(Drafts& d) {
  d.add("reject_ST-NBITS-OVERFLOW_u8_2_64_minus_1_at_u64_max", "U8 [2^64-1] at [0, 2^64-1] in a tiny file: (2^64-1)*8 bits "
        "overflows (F10), and the offsets name bytes the file lacks (F13)",
        one("U8", std::string("[") + kMax + "]", std::string("[0,") + kMax + "]", 0), {NbitsOverflow, BufferTruncated});
  d.add("reject_ST-BUFFER-TRUNCATED_F13_end_at_u64_max", "nine U8 tensors covering [0, 2^64-1] (each size fits F9-F12): "
        "buffer_end + 8 + N wraps in u64 (§2.2: evaluate F13 without overflow)",
        [] {
          std::string h = "{";
          std::uint64_t at = 0;
          const std::uint64_t big = (std::uint64_t{1} << 61) - 1;
          for (int i = 0; i < 9; ++i) {
            const std::uint64_t n = i < 8 ? big : 7;
            h += (i ? ",\"t" : "\"t") + std::to_string(i) + "\":" +
                 entry("U8", "[" + std::to_string(n) + "]", "[" + std::to_string(at) + "," + std::to_string(at + n) + "]");
            at += n;
          }
          return with_header(pad(h + "}"));
        }(),
        {BufferTruncated});
  d.add("reject_ST-OFFSETS-TYPE_end_2_64", "data_offsets end 2^64, one past u64 (F6.14)", one("U8", "[1]", "[0,18446744073709551616]", 1),
        {OffsetsType});
  d.add("reject_ST-OFFSETS-TYPE_negative_begin", "data_offsets [-1, 0] (F6.14; upstream attacks: negative offsets)",
        one("U8", "[1]", "[-1,0]", 1), {OffsetsType});
  d.add("reject_ST-OFFSET-REVERSED_end_below_begin", "data_offsets [1, 0] (F8)", with_header(pad("{" + u8("a", 0, 1) + ",\"b\":" +
        entry("U8", "[0]", "[1,0]") + "}"), zeros(1)), {OffsetReversed, BufferTrailing});
  d.add("accept_ST-TENSOR-UNALIGNED_F64_at_offset_1", "an F64 tensor at data offset 1 (§2: offsets need not be multiples of "
        "the element size; issues #607, #695; strict warns)",
        with_header(pad("{" + u8("a", 0, 1) + ",\"d\":" + entry("F64", "[1]", "[1,9]") + "}"), zeros(9)), {TensorUnaligned});
  d.add("reject_ST-OFFSET-OVERLAP_upstream_json_attack", "upstream test_json_attack: ten F32 [2,2] tensors all at [0,16] "
        "(X4, X13: the reference names a random one; safespec sorts by name)",
        [] {
          std::string h = "{";
          for (int i = 0; i < 10; ++i) h += (i ? "," : "") + std::string("\"t") + std::to_string(i) + "\":" + entry("F32", "[2,2]", "[0,16]");
          return with_header(h + "}", zeros(16));
        }(),
        {OffsetOverlap, HeaderUnaligned, TensorUnaligned});
  d.add("reject_ST-OFFSET-OVERLAP_PR586_tied_weights", "two names, the same bytes (PR #586: won't fix, single owner; X25: third-party parsers without overlap checks "
        "accept it)",
        with_header(pad("{" + u8("embed", 0, 4) + "," + u8("lm_head", 0, 4) + "}"), zeros(4)), {OffsetOverlap});
  d.add("reject_ST-OFFSET-OVERLAP_attack_2_scaled_down", "upstream attack attempt 2 scaled down: 100 tensors overlapping "
        "at [0,1] (PR #26: contiguity stops the denial of service)",
        [] {
          std::string h = "{";
          for (int i = 0; i < 100; ++i) h += (i ? "," : "") + u8("t" + std::to_string(i), 0, 1);
          return with_header(pad(h + "}"), zeros(1));
        }(),
        {OffsetOverlap});
  d.add("reject_ST-BUFFER-TRAILING_upstream_polyglot", "upstream test_metadata_incomplete_buffer: a valid file plus "
        "'extra_bogus_data_for_polyglot_file' (PR #206, X5)",
        with_header(kUpstreamTest, [] {
          Bytes b = zeros(16);
          const std::string extra = "extra_bogus_data_for_polyglot_file";
          b.insert(b.end(), extra.begin(), extra.end());
          return b;
        }()),
        {BufferTrailing, HeaderUnaligned});
  d.add("reject_ST-BUFFER-TRUNCATED_upstream_minus_two_bytes", "upstream test_metadata_incomplete_buffer: a valid file minus "
        "its last 2 bytes", with_header(kUpstreamTest, zeros(14)), {BufferTruncated, HeaderUnaligned});
  d.add("reject_ST-BUFFER-TRUNCATED_X25_offsets_past_end_of_file", "a U8 [64] tensor at [0, 64] in a file with 4 data "
        "bytes (X25: third-party parsers that do not validate offsets read out of bounds)",
        with_header(pad("{" + u8("a", 0, 64) + "}"), zeros(4)), {BufferTruncated});
  d.add("reject_ST-BUFFER-TRUNCATED_upstream_pread_liar", "upstream test_data_offset_overflow_is_rejected: F32 [1024,1024] at "
        "[0, 4194304] with 1 data byte", with_header(R"({"liar":{"dtype":"F32","shape":[1024,1024],"data_offsets":[0,4194304]}})", zeros(1)),
        {BufferTruncated, HeaderUnaligned, TensorUnaligned});
  d.add("reject_ST-SIZE-MISMATCH_upstream_invalid_info", "upstream test_invalid_info: I32 [2,2] with data_offsets [0,4]",
        with_header(R"({"test":{"dtype":"I32","shape":[2,2],"data_offsets":[0,4]}})", zeros(4)), {SizeMismatch, HeaderUnaligned, TensorUnaligned});
  // F1-F4 and the header length limit (F3, X16).
  d.add("reject_ST-FILE-TOO-SMALL_upstream_empty_file", "upstream test_header_too_small: an empty file (F1)", {}, {FileTooSmall});
  d.add("reject_ST-FILE-TOO-SMALL_seven_bytes", "seven bytes: the length prefix is cut short (F1)", Bytes{8, 0, 0, 0, 0, 0, 0},
        {FileTooSmall});
  d.add("reject_ST-HEADER-TOO-LARGE_upstream_header_too_large", "upstream test_header_too_large: length bytes "
        "3C 00 00 00 00 FF FF FF (F3)", Bytes{0x3c, 0, 0, 0, 0, 0xff, 0xff, 0xff}, {HeaderTooLarge});
  d.add("reject_ST-HEADER-TOO-LARGE_limit_plus_one", "N = 100,000,001, one over the limit, in a small file: F3 comes before "
        "F4 (X16; hf.js caps at 25,000,000, issue #668 was a genuine 126 MB header)",
        with_length(100000001, "{}      "), {HeaderTooLarge});
  d.add("reject_ST-HEADER-LENGTH_at_limit_file_short", "N = 100,000,000, exactly the limit, in a small file: F3 passes and "
        "F4 fails. The accepted case, a real 100,000,000-byte header, cannot be small: it lives in corpus/adversarial, "
        "generated at test time", with_length(100000000, "{}      "), {HeaderLength});
  d.add("reject_ST-HEADER-TOO-LARGE_u64_max", "N = 2^64-1 (F3; upstream attack attempt 1: a huge length prefix)", with_length(~std::uint64_t{0}, "{}"), {HeaderTooLarge});
  d.add("reject_ST-HEADER-TOO-LARGE_issue_414_zip_file", "a zip archive (PK\\x03\\x04...), not a safetensors file: its first "
        "8 bytes read as N are far over the limit (issue #414)",
        Bytes{'P', 'K', 3, 4, 20, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, {HeaderTooLarge});
  d.add("reject_ST-HEADER-LENGTH_upstream_invalid_header_length", "upstream test_invalid_header_length: only the 8 bytes of "
        "N = 60 (F4)", with_length(60, ""), {HeaderLength});
  d.add("reject_ST-HEADER-LENGTH_upstream_truncated_header", "upstream test_truncated_header_is_rejected: N = 60 and the "
        "first half of the header (F4)", with_length(60, std::string(kUpstreamTest).substr(0, 30)), {HeaderLength});
  d.add("reject_ST-HEADER-LENGTH_one_past_end", "N one more than the bytes after the prefix (F4)", with_length(9, "{}      "),
        {HeaderLength});
}

void model_rules(Drafts& d) {
  d.add("accept_X12_metadata_only", "no tensors, only __metadata__ (issues #466, #601)",
        with_header(pad("{\"__metadata__\":{\"format\":\"pt\"}}")));
  d.add("accept_X12_empty_metadata", "{\"__metadata__\":{}}: what a correct writer emits for zero tensors and empty "
        "metadata (§7.1)", with_header(pad("{\"__metadata__\":{}}")));
  d.add("reject_ST-JSON-SYNTAX_X12_reference_writer_empty_metadata", "{},\"__metadata__\":{}}: what the reference writer "
        "emits for zero tensors and empty metadata (§7.1, X12)", with_header(pad("{},\"__metadata__\":{}}")), {JsonSyntax});
  d.add("accept_ST-METADATA-NULL_issue_823", "__metadata__: null, read as absent (X8, issue #823; strict warns)",
        with_header(pad("{\"__metadata__\":null}")), {MetadataNull});
  d.add("reject_ST-TENSOR-NAME-RESERVED_issue_849_tensor_named_metadata", "what the reference writer writes for a tensor "
        "named __metadata__ (X10, issue #849): a reader sees a metadata entry holding a tensor object and rejects it "
        "(ST-METADATA-TYPE); ST-TENSOR-NAME-RESERVED is the writer's refusal, which no reader can report",
        with_header(pad("{\"__metadata__\":" + entry("U8", "[1]", "[0,1]") + "}"), zeros(1)), {MetadataType},
        {TensorNameReserved});
  for (const auto& [what, value] : {std::pair<const char*, const char*>{"int_value_issue_278", "{\"k\":1}"},
                                    {"null_value", "{\"k\":null}"},
                                    {"nested_object_value", "{\"k\":{}}"},
                                    {"array", "[\"k\"]"},
                                    {"string", "\"pt\""}})
    d.add(std::string("reject_ST-METADATA-TYPE_") + what, std::string("__metadata__ is ") + value + " (F6.7, X9)",
          with_header(pad(std::string("{\"__metadata__\":") + value + "}")), {MetadataType});
  for (const auto& [what, value] : {std::pair<const char*, const char*>{"array", "[]"},
                                    {"string", "\"a\""},
                                    {"null", "null"},
                                    {"number", "1"}})
    d.add(std::string("reject_ST-JSON-NOT-OBJECT_") + what, std::string("the header is ") + value + " (F6.3)",
          with_header(pad(value)), {JsonNotObject});
  for (const auto& [what, value] : {std::pair<const char*, const char*>{"number", "1"}, {"null", "null"}, {"string", "\"U8\""}})
    d.add(std::string("reject_ST-TENSOR-NOT-OBJECT_") + what, std::string("a tensor entry that is ") + value + " (F6.10)",
          with_header(pad(std::string("{\"a\":") + value + "}")), {TensorNotObject});
  for (const char* field : {"dtype", "shape", "data_offsets"}) {
    std::string h = "{\"a\":{";
    bool first = true;
    for (const auto& [k, v] : {std::pair<const char*, const char*>{"dtype", "\"U8\""}, {"shape", "[1]"}, {"data_offsets", "[0,1]"}})
      if (std::string(k) != field) {
        h += (first ? "\"" : ",\"") + std::string(k) + "\":" + v;
        first = false;
      }
    d.add(std::string("reject_ST-TENSOR-FIELD-MISSING_no_") + field, std::string("a tensor entry without ") + field + " (F6.11)",
          with_header(pad(h + "}}"), zeros(1)), {TensorFieldMissing});
  }
  for (const auto& [what, value] : {std::pair<const char*, const char*>{"lowercase", "\"u8\""},
                                    {"trailing_space", "\"U8 \""},
                                    {"empty", "\"\""},
                                    {"F8_E4M3FN_torch_name", "\"F8_E4M3FN\""},
                                    {"number", "8"},
                                    {"null", "null"}})
    d.add(std::string("reject_ST-DTYPE-UNKNOWN_") + what, std::string("dtype ") + value + " (F6.12: one of the 22 names exactly)",
          with_header(pad(std::string("{\"a\":{\"dtype\":") + value + ",\"shape\":[1],\"data_offsets\":[0,1]}}"), zeros(1)),
          {DtypeUnknown});
  for (const auto& [what, value] : {std::pair<const char*, const char*>{"fraction", "[1.0]"},
                                    {"exponent", "[1e0]"},
                                    {"negative", "[-1]"},
                                    {"u64_plus_one", "[18446744073709551616]"},
                                    {"string_dim", "[\"1\"]"},
                                    {"nested", "[[1]]"},
                                    {"not_array", "1"},
                                    {"null", "null"}})
    d.add(std::string("reject_ST-SHAPE-TYPE_") + what, std::string("shape ") + value + " (F6.13, F6.15)",
          with_header(pad(std::string("{\"a\":{\"dtype\":\"U8\",\"shape\":") + value + ",\"data_offsets\":[0,1]}}"), zeros(1)),
          {ShapeType});
  for (const auto& [what, value] : {std::pair<const char*, const char*>{"one_value", "[0]"},
                                    {"three_values", "[0,1,2]"},
                                    {"strings", "[\"0\",\"1\"]"},
                                    {"object", "{\"begin\":0,\"end\":1}"}})
    d.add(std::string("reject_ST-OFFSETS-TYPE_") + what, std::string("data_offsets ") + value + " (F6.14)",
          with_header(pad(std::string("{\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":") + value + "}}"), zeros(1)),
          {OffsetsType});
  d.add("accept_ST-TENSOR-UNKNOWN-FIELD_X19_extra_field", "an unknown field in a tensor entry, ignored by the reference "
        "(X19: the stale schema forbids it; strict warns)",
        with_header(pad("{\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1],\"note\":[1.5,{\"x\":null},true]}}"), zeros(1)),
        {TensorUnknownField});
}

// Where the written spec is silent: the reference's behaviour and
// safespec's documented position (docs/design.md, "What the spec decides").
void positions(Drafts& d) {
  const auto nested = [](int depth) {  // an unknown field whose value nests so the whole header is `depth` deep
    return with_header(pad("{\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1],\"x\":" + std::string(depth - 2, '[') +
                           std::string(depth - 2, ']') + "}}"),
                       zeros(1));
  };
  d.add("impldef_ST-TENSOR-UNKNOWN-FIELD_depth_127", "arrays and objects nested 127 deep, counting the top-level object: "
        "the deepest serde_json's recursion limit of 128 takes (F6.6, X21; safespec's position)", nested(127),
        {TensorUnknownField});
  d.add("impldef_ST-JSON-DEPTH_depth_128", "nested 128 deep, one past serde_json's limit (F6.6, X21; safespec's position)",
        nested(128), {JsonDepth});
  d.add("impldef_ST-SHAPE-TYPE_negative_zero", "shape [-0]: not an integer in [0, 2^64-1] (F6.15; safespec's position)",
        one("U8", "[-0]", "[0,0]", 0), {ShapeType});
  d.add("impldef_ST-JSON-SYNTAX_1e400_in_unknown_field", "1e400 in an ignored field: serde_json rejects numbers that "
        "overflow f64 anywhere (F6.15; safespec's position)",
        with_header(pad("{\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1],\"x\":1e400}}"), zeros(1)), {JsonSyntax});
  d.add("impldef_ST-TENSOR-UNKNOWN-FIELD_f64_max_in_unknown_field", "1.7976931348623157e308 in an ignored field: finite, "
        "accepted (serde_json's parser is not correctly rounded near the limit; undetermined upstream)",
        with_header(pad("{\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1],\"x\":1.7976931348623157e308}}"), zeros(1)),
        {TensorUnknownField});
  d.add("accept_ST-DTYPE-UNKNOWN_one_key_map", "dtype {\"U8\":null}: the reference reads it (serde's enum from a one-key "
        "map whose value is null) and every consumer loads it; strict flags it (F6.12: strings only)", with_header(pad("{\"a\":{\"dtype\":{\"U8\":null},\"shape\":[1],\"data_offsets\":[0,1]}}"), zeros(1)),
        {DtypeUnknown});
  d.add("accept_ST-TENSOR-NOT-OBJECT_array_form_entry", "a tensor entry as [\"U8\",[1],[0,1]]: the reference reads it "
        "(serde's derived visit_seq, fields in order) and every consumer loads it; strict flags it (F6.10: objects only)", with_header(pad("{\"a\":[\"U8\",[1],[0,1]]}"), zeros(1)),
        {TensorNotObject});
  d.add("impldef_ST-DUPLICATE-TENSOR_escaped_and_plain_last_wins", "\"a\" then \"\\u0061\" with different offsets: the "
        "reference keeps the last, safespec's model keeps its first position (X3)",
        with_header(pad("{" + u8("a", 0, 5) + ",\"\\u0061\":" + entry("U8", "[1]", "[0,1]") + "}"), zeros(1)),
        {DuplicateTensorEscaped});
  d.add("impldef_ST-OFFSET-OVERLAP_tie_names_sorted", "two tensors with equal (begin, end): F7's order is made total by "
        "the name, so the reported tensor is the same on every run (X13)",
        with_header(pad("{" + u8("b", 0, 2) + "," + u8("a", 0, 2) + "}"), zeros(2)), {OffsetOverlap});
}

}  // namespace

std::vector<Draft> tricky_drafts() {
  Drafts d;
  whitespace(d);
  escapes(d);
  duplicates(d);
  shapes_and_dtypes(d);
  offsets_and_lengths(d);
  model_rules(d);
  positions(d);
  return std::move(d.out);
}

}  // namespace safespec::conformance::detail
