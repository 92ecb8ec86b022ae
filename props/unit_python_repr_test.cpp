// safespec::py: Python 3 repr()/str()/format() of the values embedded in
// sglang and ComfyUI messages (comfy-quant-markers.md §6). Every expected
// string below was printed by CPython 3.11.7 (Unicode 14.0.0).
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "props/catch.hpp"
#include "spec/python/python_repr.hpp"

using namespace std::string_view_literals;
namespace py = safespec::py;

namespace {

struct StrCase {
  const char* python;  // the Python literal the case stands for
  std::string_view input;
  std::string_view expected;
};

// repr(s) for each string: delimiter choice, escapes, printable and
// non-printable characters in each escape width.
const StrCase kStrCases[] = {
    {"''", ""sv, "''"sv},
    {"'a'", "a"sv, "'a'"sv},
    {"'model.layers.0.weight'", "model.layers.0.weight"sv, "'model.layers.0.weight'"sv},
    {"' '", " "sv, "' '"sv},
    {"\"a'b\"", "a'b"sv, "\"a'b\""sv},
    {"'a\"b'", "a\"b"sv, "'a\"b'"sv},
    {"'a\\'\"b'", "a'\"b"sv, "'a\\'\"b'"sv},
    {"\"it's\"", "it's"sv, "\"it's\""sv},
    {"'\\\\'", "\\"sv, "'\\\\'"sv},
    {"'a\\\\b'", "a\\b"sv, "'a\\\\b'"sv},
    {"\"\\\\'\"", "\\'"sv, "\"\\\\'\""sv},
    {"'\\\\\\'\"'", "\\'\""sv, "'\\\\\\'\"'"sv},
    {"'\\t\\n\\r'", "\t\n\r"sv, "'\\t\\n\\r'"sv},
    {"'\\x00\\x01\\x1b\\x1f'", "\000\001\033\037"sv, "'\\x00\\x01\\x1b\\x1f'"sv},
    {"'\\x0b\\x0c'", "\013\014"sv, "'\\x0b\\x0c'"sv},
    {"'~\\x7f'", "~\177"sv, "'~\\x7f'"sv},
    {"'\\x80\\x9f'", "\302\200\302\237"sv, "'\\x80\\x9f'"sv},
    {"'\\x85'", "\302\205"sv, "'\\x85'"sv},
    {"'\\xa0'", "\302\240"sv, "'\\xa0'"sv},
    {"'\\xad'", "\302\255"sv, "'\\xad'"sv},
    {"'\\xa1\\xff'", "\302\241\303\277"sv, "'\302\241\303\277'"sv},
    {"'caf\303\251'", "caf\303\251"sv, "'caf\303\251'"sv},
    {"'e\\u0301'", "e\314\201"sv, "'e\314\201'"sv},
    {"'\\u0378'", "\315\270"sv, "'\\u0378'"sv},
    {"'\\u200b\\x00\\x7f'", "\342\200\213\000\177"sv, "'\\u200b\\x00\\x7f'"sv},
    {"'\\u2028\\u2029'", "\342\200\250\342\200\251"sv, "'\\u2028\\u2029'"sv},
    {"'\\u3000'", "\343\200\200"sv, "'\\u3000'"sv},
    {"'\\u1680'", "\341\232\200"sv, "'\\u1680'"sv},
    {"'\\ue000'", "\356\200\200"sv, "'\\ue000'"sv},
    {"'\\ufeff'", "\357\273\277"sv, "'\\ufeff'"sv},
    {"'\\uffff'", "\357\277\277"sv, "'\\uffff'"sv},
    {"'\346\227\245\346\234\254\350\252\236'", "\346\227\245\346\234\254\350\252\236"sv, "'\346\227\245\346\234\254\350\252\236'"sv},
    {"'\\U0001f600'", "\360\237\230\200"sv, "'\360\237\230\200'"sv},
    {"'\\U000e0001'", "\363\240\200\201"sv, "'\\U000e0001'"sv},
    {"'\\U000f0000'", "\363\260\200\200"sv, "'\\U000f0000'"sv},
    {"'\\U0010ffff'", "\364\217\277\277"sv, "'\\U0010ffff'"sv},
    {"'\\U0001d173'", "\360\235\205\263"sv, "'\\U0001d173'"sv},
    {"'x\\'y\\ty\"'", "x'y\ty\""sv, "'x\\'y\\ty\"'"sv},
    {"'\\ud800'", "\355\240\200"sv, "'\\ud800'"sv},
    {"'\\udfff'", "\355\277\277"sv, "'\\udfff'"sv},
};

// Bytes no Python str decodes to: printed as the surrogateescape characters.
const StrCase kByteCases[] = {
    {"b'\\xff'", "\377"sv, "'\\udcff'"sv},
    {"b'a\\xe2\\x82'", "a\342\202"sv, "'a\\udce2\\udc82'"sv},
    {"b'\\xc0\\x80'", "\300\200"sv, "'\\udcc0\\udc80'"sv},
    {"b'\\x80x'", "\200x"sv, "'\\udc80x'"sv},
    {"b'\\xf4\\x90\\x80\\x80'", "\364\220\200\200"sv, "'\\udcf4\\udc90\\udc80\\udc80'"sv},
    {"b'\\xe0\\x80\\x80'", "\340\200\200"sv, "'\\udce0\\udc80\\udc80'"sv},
};

struct FloatCase {
  const char* python;
  double value;  // the exact value, as a hexadecimal literal from float.hex()
  std::string_view expected;
};

const FloatCase kFloatCases[] = {
    {"16.0", 0x1.0000000000000p+4, "16.0"},
    {"0.1", 0x1.999999999999ap-4, "0.1"},
    {"1e-05", 0x1.4f8b588e368f1p-17, "1e-05"},
    {"0.0001", 0x1.a36e2eb1c432dp-14, "0.0001"},
    {"1e16", 0x1.1c37937e08000p+53, "1e+16"},
    {"1234567890123456.0", 0x1.18b54f22aeb00p+50, "1234567890123456.0"},
    {"1e+16", 0x1.1c37937e08000p+53, "1e+16"},
    {"1.5e300", 0x1.1eb2d66005835p+997, "1.5e+300"},
    {"5e-324", 0x0.0000000000001p-1022, "5e-324"},
    {"-0.0", -0x0.0p+0, "-0.0"},
    {"0.0", 0x0.0p+0, "0.0"},
    {"1e22", 0x1.0f0cf064dd592p+73, "1e+22"},
    {"1e-7", 0x1.ad7f29abcaf48p-24, "1e-07"},
    {"123.456", 0x1.edd2f1a9fbe77p+6, "123.456"},
    {"0.3", 0x1.3333333333333p-2, "0.3"},
    {"2.0**53", 0x1.0000000000000p+53, "9007199254740992.0"},
    {"9007199254740993.0", 0x1.0000000000000p+53, "9007199254740992.0"},
    {"1.7976931348623157e308", 0x1.fffffffffffffp+1023, "1.7976931348623157e+308"},
    {"2.2250738585072014e-308", 0x1.0000000000000p-1022, "2.2250738585072014e-308"},
    {"9999999999999998.0", 0x1.1c37937e07fffp+53, "9999999999999998.0"},
    {"12345678901234567.0", 0x1.5ee2a2eb5a5c4p+53, "1.2345678901234568e+16"},
    {"-1.5", -0x1.8000000000000p+0, "-1.5"},
    {"100.0", 0x1.9000000000000p+6, "100.0"},
    {"0.00001234", 0x1.9e0fcaf9380fcp-17, "1.234e-05"},
    {"0.1+0.2", 0x1.3333333333334p-2, "0.30000000000000004"},
    {"1/3", 0x1.5555555555555p-2, "0.3333333333333333"},
    {"-2.5e-10", -0x1.12e0be826d695p-32, "-2.5e-10"},
    {"3e15", 0x1.550f7dca70000p+51, "3000000000000000.0"},
    {"0.001", 0x1.0624dd2f1a9fcp-10, "0.001"},
};

struct FixedCase {
  double value;
  int precision;
  std::string_view expected;  // format(value, f".{precision}f")
};

const FixedCase kFixedCases[] = {
    {0x1.0000000000000p+3, 1, "8.0"},
    {0x1.0000000000000p+3, 1, "8.0"},
    {0x1.0000000000000p-3, 2, "0.12"},
    {0x1.8000000000000p-2, 2, "0.38"},
    {0x1.4000000000000p+1, 0, "2"},
    {0x1.c000000000000p+1, 0, "4"},
    {-0x1.47ae147ae147bp-5, 1, "-0.0"},
    {0x1.999999999999ap-5, 1, "0.1"},
    {0x1.3333333333333p-3, 1, "0.1"},
    {0x1.34a456d5cfaadp+10, 3, "1234.568"},
    {-0x0.0p+0, 1, "-0.0"},
    {0x1.5af1d78b58c40p+66, 1, "100000000000000000000.0"},
    {0x1.5555555555555p-1, 4, "0.6667"},
};

struct PrintableCase {
  std::uint32_t cp;
  int printable;
};

// tools/gen_unicode_printable.py --test-vector: edges of every 7th range of
// the table and a fixed pseudo-random sample, with chr(cp).isprintable().
const PrintableCase kPrintableCases[] = {
    // Python 3.11.7, Unicode 14.0.0: 400 code points, printable ones marked 1.
    {0x00000, 0}, {0x0001f, 0}, {0x00020, 1}, {0x0007e, 1}, {0x0007f, 0}, {0x000a0, 0},
    {0x000a1, 1}, {0x000ac, 1}, {0x000ad, 0}, {0x000ae, 1}, {0x00377, 1}, {0x00378, 0},
    {0x00379, 0}, {0x0037a, 1}, {0x0037f, 1}, {0x00380, 0}, {0x00383, 0}, {0x00384, 1},
    {0x0038a, 1}, {0x0038b, 0}, {0x0038c, 1}, {0x0038d, 0}, {0x0038e, 1}, {0x005ea, 1},
    {0x005eb, 0}, {0x005ee, 0}, {0x005ef, 1}, {0x007fa, 1}, {0x007fb, 0}, {0x007fc, 0},
    {0x007fd, 1}, {0x008e1, 1}, {0x008e2, 0}, {0x008e3, 1}, {0x009b9, 1}, {0x009ba, 0},
    {0x009bb, 0}, {0x009bc, 1}, {0x009fe, 1}, {0x009ff, 0}, {0x00a00, 0}, {0x00a01, 1},
    {0x00a36, 1}, {0x00a37, 0}, {0x00a38, 1}, {0x00a5c, 1}, {0x00a5d, 0}, {0x00a5e, 1},
    {0x00ab0, 1}, {0x00ab1, 0}, {0x00ab2, 1}, {0x00ae3, 1}, {0x00ae4, 0}, {0x00ae5, 0},
    {0x00ae6, 1}, {0x00b30, 1}, {0x00b31, 0}, {0x00b32, 1}, {0x00b5d, 1}, {0x00b5e, 0},
    {0x00b5f, 1}, {0x00b9a, 1}, {0x00b9b, 0}, {0x00b9c, 1}, {0x00bc8, 1}, {0x00bc9, 0},
    {0x00bca, 1}, {0x00c28, 1}, {0x00c29, 0}, {0x00c2a, 1}, {0x00c5d, 1}, {0x00c5e, 0},
    {0x00c5f, 0}, {0x00c60, 1}, {0x00cb9, 1}, {0x00cba, 0}, {0x00cbb, 0}, {0x00cbc, 1},
    {0x00cef, 1}, {0x00cf0, 0}, {0x00cf1, 1}, {0x00d63, 1}, {0x00d64, 0}, {0x00d65, 0},
    {0x00d66, 1}, {0x00dc6, 1}, {0x00dc7, 0}, {0x00dc9, 0}, {0x00dca, 1}, {0x00e3a, 1},
    {0x00e3b, 0}, {0x00e3e, 0}, {0x00e3f, 1}, {0x00ebd, 1}, {0x00ebe, 0}, {0x00ebf, 0},
    {0x00ec0, 1}, {0x00f6c, 1}, {0x00f6d, 0}, {0x00f70, 0}, {0x00f71, 1}, {0x010cd, 1},
    {0x010ce, 0}, {0x010cf, 0}, {0x010d0, 1}, {0x0128d, 1}, {0x0128e, 0}, {0x0128f, 0},
    {0x01290, 1}, {0x01310, 1}, {0x01311, 0}, {0x01312, 1}, {0x0167f, 1}, {0x01680, 0},
    {0x01681, 1}, {0x01770, 1}, {0x01771, 0}, {0x01772, 1}, {0x01878, 1}, {0x01879, 0},
    {0x0187f, 0}, {0x01880, 1}, {0x0196d, 1}, {0x0196e, 0}, {0x0196f, 0}, {0x01970, 1},
    {0x01a7c, 1}, {0x01a7d, 0}, {0x01a7e, 0}, {0x01a7f, 1}, {0x01bf3, 1}, {0x01bf4, 0},
    {0x01bfb, 0}, {0x01bfc, 1}, {0x01f15, 1}, {0x01f16, 0}, {0x01f17, 0}, {0x01f18, 1},
    {0x01f5d, 1}, {0x01f5e, 0}, {0x01f5f, 1}, {0x01ff4, 1}, {0x01ff5, 0}, {0x01ff6, 1},
    {0x020c0, 1}, {0x020c1, 0}, {0x020cf, 0}, {0x020d0, 1}, {0x02cf3, 1}, {0x02cf4, 0},
    {0x02cf8, 0}, {0x02cf9, 1}, {0x02da6, 1}, {0x02da7, 0}, {0x02da8, 1}, {0x02dde, 1},
    {0x02ddf, 0}, {0x02de0, 1}, {0x03096, 1}, {0x03097, 0}, {0x03098, 0}, {0x03099, 1},
    {0x0a4c6, 1}, {0x0a4c7, 0}, {0x0a4cf, 0}, {0x0a4d0, 1}, {0x0a82c, 1}, {0x0a82d, 0},
    {0x0a82f, 0}, {0x0a830, 1}, {0x0a9cd, 1}, {0x0a9ce, 0}, {0x0a9cf, 1}, {0x0aaf6, 1},
    {0x0aaf7, 0}, {0x0ab00, 0}, {0x0ab01, 1}, {0x0abed, 1}, {0x0abee, 0}, {0x0abef, 0},
    {0x0abf0, 1}, {0x0fb06, 1}, {0x0fb07, 0}, {0x0fb12, 0}, {0x0fb13, 1}, {0x0fbc2, 1},
    {0x0fbc3, 0}, {0x0fbd2, 0}, {0x0fbd3, 1}, {0x0fe6b, 1}, {0x0fe6c, 0}, {0x0fe6f, 0},
    {0x0fe70, 1}, {0x0ffdc, 1}, {0x0ffdd, 0}, {0x0ffdf, 0}, {0x0ffe0, 1}, {0x1003d, 1},
    {0x1003e, 0}, {0x1003f, 1}, {0x1019c, 1}, {0x1019d, 0}, {0x1019f, 0}, {0x101a0, 1},
    {0x1034a, 1}, {0x1034b, 0}, {0x1034f, 0}, {0x10350, 1}, {0x104d3, 1}, {0x104d4, 0},
    {0x104d7, 0}, {0x104d8, 1}, {0x10595, 1}, {0x10596, 0}, {0x10597, 1}, {0x10767, 1},
    {0x10768, 0}, {0x1077f, 0}, {0x10780, 1}, {0x10838, 1}, {0x10839, 0}, {0x1083b, 0},
    {0x1083c, 1}, {0x1091b, 1}, {0x1091c, 0}, {0x1091e, 0}, {0x1091f, 1}, {0x10a13, 1},
    {0x10a14, 0}, {0x10a15, 1}, {0x10ae6, 1}, {0x10ae7, 0}, {0x10aea, 0}, {0x10aeb, 1},
    {0x10baf, 1}, {0x10bb0, 0}, {0x10bff, 0}, {0x10c00, 1}, {0x10ea9, 1}, {0x10eaa, 0},
    {0x10eab, 1}, {0x10ff6, 1}, {0x10ff7, 0}, {0x10fff, 0}, {0x11000, 1}, {0x11134, 1},
    {0x11135, 0}, {0x11136, 1}, {0x11286, 1}, {0x11287, 0}, {0x11288, 1}, {0x11303, 1},
    {0x11304, 0}, {0x11305, 1}, {0x11344, 1}, {0x11345, 0}, {0x11346, 0}, {0x11347, 1},
    {0x11374, 1}, {0x11375, 0}, {0x113ff, 0}, {0x11400, 1}, {0x11644, 1}, {0x11645, 0},
    {0x1164f, 0}, {0x11650, 1}, {0x11746, 1}, {0x11747, 0}, {0x117ff, 0}, {0x11800, 1},
    {0x11935, 1}, {0x11936, 0}, {0x11937, 1}, {0x11a47, 1}, {0x11a48, 0}, {0x11a4f, 0},
    {0x11a50, 1}, {0x11c8f, 1}, {0x11c90, 0}, {0x11c91, 0}, {0x11c92, 1}, {0x11d3d, 1},
    {0x11d3e, 0}, {0x11d3f, 1}, {0x11d98, 1}, {0x11d99, 0}, {0x11d9f, 0}, {0x11da0, 1},
    {0x12474, 1}, {0x12475, 0}, {0x1247f, 0}, {0x12480, 1}, {0x16a69, 1}, {0x16a6a, 0},
    {0x16a6d, 0}, {0x16a6e, 1}, {0x16b61, 1}, {0x16b62, 0}, {0x16b63, 1}, {0x16fe4, 1},
    {0x16fe5, 0}, {0x16fef, 0}, {0x16ff0, 1}, {0x1affe, 1}, {0x1afff, 0}, {0x1b000, 1},
    {0x1bc88, 1}, {0x1bc89, 0}, {0x1bc8f, 0}, {0x1bc90, 1}, {0x1d126, 1}, {0x1d127, 0},
    {0x1d128, 0}, {0x1d129, 1}, {0x1d454, 1}, {0x1d455, 0}, {0x1d456, 1}, {0x1d4bb, 1},
    {0x1d4bc, 0}, {0x1d4bd, 1}, {0x1d53e, 1}, {0x1d53f, 0}, {0x1d540, 1}, {0x1da9f, 1},
    {0x1daa0, 0}, {0x1daa1, 1}, {0x1e02a, 1}, {0x1e02b, 0}, {0x1e0ff, 0}, {0x1e100, 1},
    {0x1e2ff, 1}, {0x1e300, 0}, {0x1e7df, 0}, {0x1e7e0, 1}, {0x1e94b, 1}, {0x1e94c, 0},
    {0x1e94f, 0}, {0x1e950, 1}, {0x1ee22, 1}, {0x1ee23, 0}, {0x1ee24, 1}, {0x1ee42, 1},
    {0x1ee43, 0}, {0x1ee46, 0}, {0x1ee47, 1}, {0x1ee57, 1}, {0x1ee58, 0}, {0x1ee59, 1},
    {0x1ee6a, 1}, {0x1ee6b, 0}, {0x1ee6c, 1}, {0x1eea3, 1}, {0x1eea4, 0}, {0x1eea5, 1},
    {0x1f0bf, 1}, {0x1f0c0, 0}, {0x1f0c1, 1}, {0x1f251, 1}, {0x1f252, 0}, {0x1f25f, 0},
    {0x1f260, 1}, {0x1f7eb, 1}, {0x1f7ec, 0}, {0x1f7ef, 0}, {0x1f7f0, 1}, {0x1f8b1, 1},
    {0x1f8b2, 0}, {0x1f8ff, 0}, {0x1f900, 1}, {0x1faba, 1}, {0x1fabb, 0}, {0x1fabf, 0},
    {0x1fac0, 1}, {0x1fbf9, 1}, {0x1fbfa, 0}, {0x1ffff, 0}, {0x20000, 1}, {0x2b81d, 1},
    {0x2b81e, 0}, {0x2b81f, 0}, {0x2b820, 1}, {0x2cea1, 1}, {0x2cea2, 0}, {0x2ceaf, 0},
    {0x2ceb0, 1}, {0x2ebe0, 1}, {0x2ebe1, 0}, {0x2f7ff, 0}, {0x2f800, 1}, {0x2fa1d, 1},
    {0x2fa1e, 0}, {0x2ffff, 0}, {0x30000, 1}, {0x3134a, 1}, {0x3134b, 0}, {0xe00ff, 0},
    {0xe0100, 1}, {0xe01ef, 1}, {0xe01f0, 0}, {0x10ffff, 0},
};

}  // namespace

TEST_CASE("python_repr: py::repr_str is CPython's str.__repr__") {
  for (const auto& c : kStrCases) {
    INFO("Python literal " << c.python);
    CHECK(py::repr_str(c.input) == c.expected);
    CHECK(py::repr(py::Value(c.input)) == c.expected);
  }
}

TEST_CASE("python_repr: py::repr_str of bytes that are not UTF-8: surrogateescape characters") {
  for (const auto& c : kByteCases) {
    INFO("bytes " << c.python);
    CHECK(py::repr_str(c.input) == c.expected);
  }
}

TEST_CASE("python_repr: py::repr_str: the reference document's examples (§6 item 2)") {
  CHECK(py::repr_str("a'b") == "\"a'b\"");
  CHECK(py::repr_str("a\"b") == "'a\"b'");
  CHECK(py::repr_str("a'\"b") == "'a\\'\"b'");
  CHECK(py::repr_str("caf\xc3\xa9") == "'caf\xc3\xa9'");
  CHECK(py::repr_str("\xe2\x80\x8b\0\x7f"sv) == "'\\u200b\\x00\\x7f'");
  CHECK(py::repr_str("mxfp8") == "'mxfp8'");  // KeyError: 'mxfp8'
}

TEST_CASE("python_repr: py::repr_float is CPython's float.__repr__") {
  for (const auto& c : kFloatCases) {
    INFO("Python float " << c.python);
    CHECK(py::repr_float(c.value) == c.expected);
    CHECK(py::repr(py::Value(c.value)) == c.expected);
    CHECK(py::str(py::Value(c.value)) == c.expected);
  }
  SECTION("inf, -inf and nan of either sign") {
    constexpr double inf = std::numeric_limits<double>::infinity();
    constexpr double nan = std::numeric_limits<double>::quiet_NaN();
    CHECK(py::repr_float(inf) == "inf");
    CHECK(py::repr_float(-inf) == "-inf");
    CHECK(py::repr_float(nan) == "nan");
    CHECK(py::repr_float(-nan) == "nan");
  }
}

TEST_CASE("python_repr: py::format_fixed is format(x, '.Nf')") {
  for (const auto& c : kFixedCases) {
    INFO("format(" << py::repr_float(c.value) << ", '." << c.precision << "f')");
    CHECK(py::format_fixed(c.value, c.precision) == c.expected);
  }
  constexpr double inf = std::numeric_limits<double>::infinity();
  CHECK(py::format_fixed(std::numeric_limits<double>::quiet_NaN(), 1) == "nan");
  CHECK(py::format_fixed(inf, 1) == "inf");
  CHECK(py::format_fixed(-inf, 1) == "-inf");
}

TEST_CASE("python_repr: py::repr of int, bool and None") {
  CHECK(py::repr(py::Value(0)) == "0");
  CHECK(py::repr(py::Value(16)) == "16");
  CHECK(py::repr(py::Value(-1)) == "-1");
  CHECK(py::repr(py::Value(std::numeric_limits<std::int64_t>::min())) == "-9223372036854775808");
  CHECK(py::repr(py::Value(std::numeric_limits<std::int64_t>::max())) == "9223372036854775807");
  CHECK(py::repr(py::Value(std::numeric_limits<std::uint64_t>::max())) == "18446744073709551615");
  CHECK(py::repr(py::Value(std::int8_t{-128})) == "-128");
  CHECK(py::repr(py::Value(std::uint16_t{65535})) == "65535");
  CHECK(py::repr_int(std::numeric_limits<std::int64_t>::min()) == "-9223372036854775808");
  CHECK(py::repr_uint(std::numeric_limits<std::uint64_t>::max()) == "18446744073709551615");
  CHECK(py::repr(py::Int{true, std::numeric_limits<std::uint64_t>::max()}) == "-18446744073709551615");
  CHECK(py::repr(py::Value(true)) == "True");
  CHECK(py::repr(py::Value(false)) == "False");
  CHECK(py::repr(py::Value()) == "None");
  CHECK(py::repr(py::None{}) == "None");
  CHECK(py::repr(py::Value("True")) == "'True'");  // a str, not a bool
}

TEST_CASE("python_repr: py::repr of tuples, lists and dicts") {
  SECTION("tuples: (), (16,), (8, 64)") {
    CHECK(py::repr(py::tuple({})) == "()");
    CHECK(py::repr(py::tuple({16})) == "(16,)");
    CHECK(py::repr(py::tuple({8, 64})) == "(8, 64)");
    CHECK(py::repr(py::tuple({py::None{}})) == "(None,)");
    CHECK(py::repr(py::tuple({py::tuple({})})) == "((),)");
    CHECK(py::repr(py::tuple({"F8_E4M3", py::tuple({32, 64})})) == "('F8_E4M3', (32, 64))");
    CHECK(py::repr(py::tuple({3072, 1})) == "(3072, 1)");
  }
  SECTION("lists") {
    CHECK(py::repr(py::list({})) == "[]");
    CHECK(py::repr(py::list({1, 2})) == "[1, 2]");
    CHECK(py::repr(py::list({"a.weight", "a.weight_s_rel"})) == "['a.weight', 'a.weight_s_rel']");
    CHECK(py::repr(py::list({py::list({}), py::tuple({1}), "it's"})) == "[[], (1,), \"it's\"]");
    CHECK(py::repr(py::str_list({"x", "y\n"})) == "['x', 'y\\n']");
  }
  SECTION("dicts, in insertion order") {
    CHECK(py::repr(py::dict({})) == "{}");
    CHECK(py::repr(py::dict({{"a", 1}})) == "{'a': 1}");
    CHECK(py::repr(py::dict({{"format", "int8_tensorwise"}, {"convrot", true}, {"_is_rowwise", true}})) ==
          "{'format': 'int8_tensorwise', 'convrot': True, '_is_rowwise': True}");
    CHECK(py::repr(py::dict({{"z", 1}, {"a", 2}})) == "{'z': 1, 'a': 2}");
    CHECK(py::repr(py::dict({{1, "x"}, {2.5, py::None{}}, {py::tuple({1, 2}), false}})) ==
          "{1: 'x', 2.5: None, (1, 2): False}");
    CHECK(py::repr(py::dict({{"a", py::list({1, 2.5, py::None{}, false})}, {"b", py::dict({{"c", py::tuple({})}})}})) ==
          "{'a': [1, 2.5, None, False], 'b': {'c': ()}}");
    CHECK(py::repr(py::list({py::dict({{"group_size", 16.0}, {"nan", std::numeric_limits<double>::quiet_NaN()}})})) ==
          "[{'group_size': 16.0, 'nan': nan}]");
  }
}

TEST_CASE("python_repr: py::str: a str prints itself, anything else its repr") {
  CHECK(py::str(py::Value("I8")) == "I8");
  CHECK(py::str(py::Value("a'b")) == "a'b");
  CHECK(py::str(py::Value(true)) == "True");
  CHECK(py::str(py::Value(8)) == "8");
  CHECK(py::str(py::Value()) == "None");
  CHECK(py::str(py::list({1, "a"})) == "[1, 'a']");
  // "{scale_2_dtype}{scale_2_shape}" and "{dtype}{shape}" (§6 item 7).
  CHECK(py::str(py::Value("F32")) + py::str(py::tuple({2})) == "F32(2,)");
  CHECK(py::str(py::Value("BF16")) + py::str(py::tuple({3072, 1})) == "BF16(3072, 1)");
}

TEST_CASE("python_repr: py::sorted orders strs by code point, sorted_list(x, 5) is sorted(x)[:5]") {
  // sorted(['b', 'a', 'B', 'é', 'z', '\U0001f600', '\uffff', 'a.b', 'a_b', ''])
  const std::vector<std::string> names{"b", "a", "B", "\xc3\xa9", "z", "\xf0\x9f\x98\x80", "\xef\xbf\xbf",
                                       "a.b", "a_b", ""};
  CHECK(py::sorted(names) == std::vector<std::string>{"", "B", "a", "a.b", "a_b", "b", "z", "\xc3\xa9",
                                                      "\xef\xbf\xbf", "\xf0\x9f\x98\x80"});
  CHECK(py::repr(py::sorted_list(names, 5)) == "['', 'B', 'a', 'a.b', 'a_b']");
  CHECK(py::repr(py::sorted_list(names)) ==
        "['', 'B', 'a', 'a.b', 'a_b', 'b', 'z', '\xc3\xa9', '\\uffff', '\xf0\x9f\x98\x80']");
  CHECK(py::repr(py::sorted_list({}, 5)) == "[]");
}

TEST_CASE("python_repr: py::is_printable matches str.isprintable() of Python 3.11.7") {
  CHECK(py::unicode_version() == "14.0.0");
  for (const auto& c : kPrintableCases) {
    INFO("code point 0x" << std::hex << c.cp);
    CHECK(py::is_printable(static_cast<char32_t>(c.cp)) == (c.printable != 0));
  }
  CHECK_FALSE(py::is_printable(0x110000));
}
