// Python's json.loads(bytes) (CPython 3.11, default arguments, C scanner) as
// py::Value, and the two Python value operations the marker consumers apply
// to its results: == and int(). comfy-quant-markers.md §1.1 M3 and §6 items
// 10-11, G19, G20. Standard library only; every behaviour below was checked
// against python3.11.7 (props/unit_python_json_test.cpp).
//
// Decisions (documented deviations and representation choices):
// - Input is bytes, decoded as json.loads decodes bytes: json.detect_encoding
//   picks UTF-8 (a UTF-8 BOM is skipped), UTF-16 or UTF-32 (BOM or zero-byte
//   pattern), then bytes.decode(encoding, "surrogatepass"): encoded lone
//   surrogates are accepted, any other ill-formed sequence is a
//   UnicodeDecodeError with CPython's message and byte positions.
// - A str holds each code point in its UTF-8 form; a surrogate code point
//   (from "\ud800" or surrogatepass) takes the three-byte form ED A0..BF xx
//   that python_repr reads back and prints as '\ud800'. Two adjacent
//   surrogates that were not joined by the scanner stay two code points, as in
//   Python, so byte equality of strs is Python's str equality.
// - Integers: py::Int when |v| <= 2^64-1, otherwise py::BigInt (decimal
//   digits), never both for one value. Python 3.11's int-to-str limit applies:
//   more than 4300 digits is a ValueError, as json.loads raises.
// - Nesting: CPython raises RecursionError when the nesting plus the caller's
//   Python frames reach sys.getrecursionlimit() (1000); json.loads called from
//   a script's top level accepts 995 nested containers and rejects 996. The
//   limit therefore depends on the caller; safespec uses a fixed max_depth
//   (default 995, the top-level figure, at most 2000: the scanner recurses)
//   and reports kind RecursionError.
// - max_bytes is safespec's own guard (Python has none): a longer input is
//   rejected before decoding with kind SizeLimit. Memory use is bounded by a
//   small multiple of max_bytes.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "spec/limits.hpp"
#include "spec/python/python_repr.hpp"
#include "spec/result.hpp"

namespace safespec::py {

enum class JsonErrorKind {
  JSONDecodeError,     // json.decoder.JSONDecodeError (a ValueError)
  UnicodeDecodeError,  // bytes.decode failed before parsing
  RecursionError,      // nesting deeper than LoadLimits::max_depth
  ValueError,          // an integer literal of more than 4300 digits
  SizeLimit,           // safespec only: input longer than LoadLimits::max_bytes
};

// "JSONDecodeError", "UnicodeDecodeError", "RecursionError", "ValueError",
// "SizeLimit".
std::string_view kind_name(JsonErrorKind kind);

struct JsonLoadError {
  JsonErrorKind kind = JsonErrorKind::JSONDecodeError;
  std::size_t offset = 0;  // byte offset into the input where it failed
  // JSONDecodeError's .pos (code point index into the decoded str), .lineno
  // and .colno; 0 for other kinds.
  std::size_t pos = 0;
  std::size_t lineno = 0;
  std::size_t colno = 0;
  // str(exception): "Expecting value: line 1 column 1 (char 0)",
  // "'utf-8' codec can't decode byte 0xff in position 0: invalid start byte".
  std::string message;

  // The last line of Python's traceback: "JSONDecodeError: Expecting value: ...".
  std::string what() const { return std::string(kind_name(kind)) + ": " + message; }
  friend bool operator==(const JsonLoadError&, const JsonLoadError&) = default;
};

struct LoadLimits {
  std::size_t max_bytes = kMaxMarkerReadBytes;
  std::size_t max_depth = kPythonJsonDepth;
};

// json.loads(bytes) with default arguments: objects become Dict (a key keeps
// the position of its first occurrence, the last value wins), arrays List,
// strings str, integers Int/BigInt ("-0" is 0), numbers with a fraction or
// exponent double (correctly rounded; "1e400" is inf), true/false bool, null
// None, NaN/Infinity/-Infinity double.
Result<Value, JsonLoadError> loads(std::string_view bytes, LoadLimits limits = {});

// json.loads(str) for a str given as UTF-8 (a safetensors metadata value):
// no encoding detection, and a leading U+FEFF is a JSONDecodeError ("Unexpected
// UTF-8 BOM ..."), where loads(bytes) would skip it.
Result<Value, JsonLoadError> loads_str(std::string_view utf8, LoadLimits limits = {});

// A raised Python exception: type name and str(exception).
struct PyException {
  std::string type;     // "ValueError", "TypeError", "OverflowError"
  std::string message;  // "invalid literal for int() with base 10: '1.5'"
  friend bool operator==(const PyException&, const PyException&) = default;
};

// x == y. Numbers compare by exact value across bool, Int, BigInt and double
// (True == 1 == 1.0, -0.0 == 0, 2**53 + 1 != 2.0**53). NaN: json.loads
// returns one shared object (json.decoder.NaN) for every NaN, and Python
// compares container elements and dict values with `is` before ==, so NaN ==
// NaN is False at the top level but [NaN] == [NaN] is True; a double NaN is
// taken to be that object (a NaN from elsewhere, such as float('nan') made
// by other code, is out of scope). str equals str only; list equals list and tuple tuple
// (elementwise); dicts are equal when they have equal keys with equal values,
// in any order. Dict lookups are linear: meant for small marker dicts.
bool py_equal(const Value& a, const Value& b);

// int(x): bool -> 0/1; int -> itself; float -> truncated toward zero (NaN:
// ValueError, ±inf: OverflowError); str -> base 10 with surrounding Unicode
// whitespace, an optional sign, Unicode decimal digits and single underscores
// between digits (4300 digits at most), else ValueError "invalid literal for
// int() with base 10: '...'" (the repr cut to 200 characters); None, list,
// tuple, dict -> TypeError. The result is an Int or a BigInt Value.
Result<Value, PyException> py_int(const Value& x);

}  // namespace safespec::py
