// The small adversarial cases, committed under corpus/adversarial/: lengths at
// the limits (F3), nesting far past the limit (F6.6, and in both kinds of
// quantization marker), shapes that overflow at every position (F9, F10),
// offsets at 2^64-1 (F8, F12), and the paths that are not regular files.
#include <sys/stat.h>

#include <cerrno>
#include <string>

#include "tools/adversarial_cases.hpp"
#include "tools/adversarial_support.hpp"

namespace safespec::tools {

namespace {

constexpr std::uint64_t kMax = ~std::uint64_t{0};

// 10,000 opening brackets then as many closing: far past the 128 levels
// serde_json (F6.6) and Python's recursion limit allow, and deep enough to
// overflow the stack of a recursive parser without a limit.
std::string deep(std::size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

// A one-tensor header whose tensor has this shape, and data_offsets [0, 0].
std::string shape_header(const std::string& dtype, const std::string& shape) {
  return "{" + entry("x", dtype, shape, "[0,0]") + "}";
}

AdversarialCase committed(std::string name, std::string what, Expect e, std::string header, std::string data = "") {
  return {std::move(name), Origin::Committed, std::move(what), std::move(e),
          [header = std::move(header), data = std::move(data)](const std::string& path) {
            return write_safetensors(path, header, data);
          }};
}

void add_limits(std::vector<AdversarialCase>& out) {
  // F3 comes before any arithmetic with N, so 8 + N cannot wrap (F4).
  out.push_back({"F3_length_2pow64_minus_1.safetensors", Origin::Committed, "the length prefix is 2^64-1 (no header follows)",
                 fail("ST-HEADER-TOO-LARGE", "byte 0", "found 18446744073709551615"),
                 [](const std::string& path) { return write_bytes(path, le64(kMax)); }});
  out.push_back({"F3_length_100000001.safetensors", Origin::Committed, "a length one past MAX_HEADER_SIZE, header {}",
                 fail("ST-HEADER-TOO-LARGE", "byte 0", "found 100000001"),
                 [](const std::string& path) { return write_bytes(path, le64(100'000'001) + "{}"); }});
  out.push_back({"F4_length_past_end.safetensors", Origin::Committed, "a length of 100,000,000 in a 10-byte file",
                 fail("ST-HEADER-LENGTH", "byte 0", "8 + 100000000 = 100000008 bytes for the header, found 10 bytes"),
                 [](const std::string& path) { return write_bytes(path, le64(100'000'000) + "{}"); }});
}

void add_nesting(std::vector<AdversarialCase>& out) {
  const std::string valid = entry("x", "U8", "[0]", "[0,0]");
  // Each `before` opens two objects (the header and one inside it), so the
  // 128th container, the first past F6.6's limit, is the 126th '['.
  const auto nested = [&](std::string name, std::string what, const std::string& before, const std::string& after) {
    out.push_back(committed(std::move(name), std::move(what),
                            fail("ST-JSON-DEPTH", "byte " + std::to_string(8 + before.size() + 125),
                                 "expected arrays and objects nested at most 127 deep"),
                            pad8(before + deep(10'000) + after)));
  };
  nested("F6.6_nesting_10000_in_unknown_field.safetensors", "10,000 nested arrays in an unknown field of a tensor entry",
         "{" + valid + ",\"y\":{\"dtype\":\"U8\",\"shape\":[0],\"data_offsets\":[0,0],\"z\":", "}}");
  nested("F6.6_nesting_10000_in_shape.safetensors", "10,000 nested arrays as a tensor's shape",
         "{\"y\":{\"dtype\":\"U8\",\"shape\":", ",\"data_offsets\":[0,0]}}");
  nested("F6.6_nesting_10000_in_metadata.safetensors", "10,000 nested arrays as a __metadata__ value",
         "{\"__metadata__\":{\"k\":", "}}");
  // The quantization markers hold JSON in a string: the header is fine, the
  // marker's own parse must fail as Python's json.loads does (RecursionError).
  const std::string marker = "{\"format\":" + deep(10'000) + "}";
  const auto [marked_header, marked_data] = marked_fp8_layer(marker);
  out.push_back(committed("C_nesting_10000_in_comfy_quant_tensor.safetensors",
                          "a P.comfy_quant marker tensor holding 10,000 nested arrays",
                          fail("CQ-MARKER-JSON", "tensor 'l.comfy_quant'", "RecursionError", 2), marked_header,
                          marked_data));
  std::string escaped = "{\\\"format_version\\\":\\\"1.0\\\",\\\"layers\\\":{\\\"l\\\":" + deep(10'000) + "}}";
  out.push_back(committed("C_nesting_10000_in_quantization_metadata.safetensors",
                          "__metadata__._quantization_metadata holding 10,000 nested arrays",
                          fail("CQ-QMETA-JSON", "__metadata__['_quantization_metadata']", "RecursionError"),
                          pad8("{\"__metadata__\":{\"_quantization_metadata\":\"" + escaped + "\"}," + valid + "}")));
}

void add_overflow(std::vector<AdversarialCase>& out) {
  // F9 folds the product left to right from 1: the first overflow decides,
  // even when a later dimension is 0.
  const std::string big = "4294967296";  // 2^32
  struct Shape {
    const char* name;
    const char* what;
    std::string dtype, shape;
    const char* rule;
  };
  const Shape shapes[] = {
      {"F9_shape_overflow_at_1.safetensors", "[2^32, 2^32, 1, 1]: the product overflows at position 1", "U8",
       "[" + big + "," + big + ",1,1]", "ST-SHAPE-OVERFLOW"},
      {"F9_shape_overflow_at_2.safetensors", "[2^32, 1, 2^32, 1]: overflows at position 2", "U8",
       "[" + big + ",1," + big + ",1]", "ST-SHAPE-OVERFLOW"},
      {"F9_shape_overflow_at_3.safetensors", "[2^32, 1, 1, 2^32]: overflows at position 3", "U8",
       "[" + big + ",1,1," + big + "]", "ST-SHAPE-OVERFLOW"},
      {"F9_shape_overflow_before_zero.safetensors", "[2^63, 4, 0]: overflows before the 0 that would make it empty", "U8",
       "[9223372036854775808,4,0]", "ST-SHAPE-OVERFLOW"},
      {"F9_shape_max_times_max.safetensors", "[2^64-1, 2^64-1]", "U8", "[18446744073709551615,18446744073709551615]",
       "ST-SHAPE-OVERFLOW"},
      {"F10_nbits_overflow_u8.safetensors", "U8 [2^64-1]: the element count fits, 8 x it does not", "U8",
       "[18446744073709551615]", "ST-NBITS-OVERFLOW"},
      {"F10_nbits_overflow_f64.safetensors", "F64 [2^58]: 64 x 2^58 bits overflow", "F64", "[288230376151711744]",
       "ST-NBITS-OVERFLOW"},
  };
  for (const Shape& s : shapes)
    out.push_back(committed(s.name, s.what, fail(s.rule, "tensor 'x'", "overflow"), pad8(shape_header(s.dtype, s.shape))));
  out.push_back(committed("F8_offsets_both_2pow64_minus_1.safetensors", "data_offsets [2^64-1, 2^64-1]",
                          fail("ST-OFFSET-GAP", "tensor 'x'", "found 18446744073709551615", 2),
                          pad8("{" + entry("x", "U8", "[0]", "[18446744073709551615,18446744073709551615]") + "}")));
  out.push_back(committed("F12_offsets_end_2pow64_minus_1.safetensors", "data_offsets [0, 2^64-1] for a U8 [1]",
                          fail("ST-SIZE-MISMATCH", "tensor 'x'", "= 18446744073709551615 bytes", 2),
                          pad8("{" + entry("x", "U8", "[1]", "[0,18446744073709551615]") + "}"), std::string(1, '\0')));
  out.push_back(committed("F8_offsets_reversed_max.safetensors", "data_offsets [0, 1] then [2^64-1, 1]",
                          fail("ST-OFFSET-GAP", "tensor 'y'", "found 18446744073709551615"),
                          pad8("{" + entry("x", "U8", "[1]", "[0,1]") + "," +
                               entry("y", "U8", "[0]", "[18446744073709551615,1]") + "}"),
                          std::string(1, '\0')));
}

void add_special(std::vector<AdversarialCase>& out) {
  // Refused by ByteFile::open without blocking: a FIFO is opened O_NONBLOCK
  // (no writer: open succeeds at once, then fstat says FIFO).
  out.push_back({"a_directory.safetensors", Origin::Special, "a directory given as the path",
                 io("expected a regular file, found a directory"),
                 [](const std::string& path) { return ::mkdir(path.c_str(), 0755) == 0 || errno == EEXIST; }});
  out.push_back({"a_fifo.safetensors", Origin::Special, "a FIFO with no writer given as the path",
                 io("expected a regular file, found a FIFO"),
                 [](const std::string& path) { return ::mkfifo(path.c_str(), 0644) == 0 || errno == EEXIST; }});
  out.push_back({"/dev/zero", Origin::Special, "/dev/zero given as the path",
                 io("expected a regular file, found a device"), nullptr});
  const auto write_marked = [](const std::string& path) {
    const auto [header, data] = marked_fp8_layer("{\"format\":\"float8_e4m3fn\"}");
    return write_safetensors(path, header, data);
  };
  out.push_back({"shrinks_in_header.safetensors", Origin::Shrinks,
                 "truncated to 12 bytes between open and the header read", io("the file shrank while being read"),
                 write_marked});
  out.push_back({"shrinks_before_marker.safetensors", Origin::Shrinks,
                 "truncated to its header between the header read and the marker read (second open)",
                 io("the file shrank while being read"), write_marked});
}

}  // namespace

void add_small_cases(std::vector<AdversarialCase>& out) {
  add_limits(out);
  add_nesting(out);
  add_overflow(out);
  add_special(out);
}

}  // namespace safespec::tools
