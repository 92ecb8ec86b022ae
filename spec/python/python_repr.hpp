// Python 3 value rendering for byte-exact messages: repr() and str() of the
// values that sglang and ComfyUI embed in their error messages (str, int,
// float, bool, None, tuple, list, dict), format(x, ".Nf"), and sorted() of
// strings. The rules are those of comfy-quant-markers.md §6 (items 1-9); each
// function names the CPython behaviour it reproduces. Standard library only.
//
// Strings are UTF-8. A Python str may hold lone surrogates (json.loads turns
// "\ud800" into one), so a surrogate encoded as three bytes (ED A0..BF xx,
// "WTF-8") is read as that code point and printed as Python prints it
// ('\ud800'). Any other byte that does not start a well-formed UTF-8 sequence
// is not a Python str at all; it is printed as '\udcNN', the character
// Python's "surrogateescape" error handler would have made of it.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace safespec::py {

struct Value;
struct DictEntry;

struct None {};

// A Python int within ±(2^64 - 1): every int64 and every uint64.
struct Int {
  bool negative = false;
  std::uint64_t magnitude = 0;
};

// A Python int outside Int's range, as its decimal digits: an optional "-",
// then digits without leading zeros (json.loads of "18446744073709551616").
struct BigInt {
  std::string decimal;
};

struct List {
  std::vector<Value> items;
};
struct Tuple {
  std::vector<Value> items;
};
// Entries print in the order given (a Python dict's insertion order); the
// caller keeps keys unique, as Python would.
struct Dict {
  std::vector<DictEntry> items;
};

struct Value {
  using Data = std::variant<None, bool, Int, double, std::string, List, Tuple, Dict, BigInt>;
  Data data;

  // Defined below DictEntry: building the variant needs every alternative complete.
  Value();
  Value(None);
  Value(bool b);
  template <std::integral T>
    requires(!std::same_as<T, bool> && !std::same_as<T, char>)
  Value(T v) : data(make_int(v)) {}
  Value(Int i);
  Value(double d);
  Value(const char* s);
  Value(std::string_view s);
  Value(std::string s);
  Value(List l);
  Value(Tuple t);
  Value(Dict d);
  Value(BigInt b);

 private:
  template <std::integral T>
  static Int make_int(T v) {
    if constexpr (std::is_signed_v<T>) {
      if (v < 0) {
        // Two's complement negation in unsigned arithmetic: exact for the minimum too.
        return Int{true, std::uint64_t{0} - static_cast<std::uint64_t>(static_cast<std::int64_t>(v))};
      }
    }
    return Int{false, static_cast<std::uint64_t>(v)};
  }
};

struct DictEntry {
  Value key;
  Value value;
};

inline Value::Value() : data(None{}) {}
inline Value::Value(None) : data(None{}) {}
inline Value::Value(bool b) : data(b) {}
inline Value::Value(Int i) : data(i) {}
inline Value::Value(double d) : data(d) {}
inline Value::Value(const char* s) : data(std::string(s)) {}
inline Value::Value(std::string_view s) : data(std::string(s)) {}
inline Value::Value(std::string s) : data(std::move(s)) {}
inline Value::Value(List l) : data(std::move(l)) {}
inline Value::Value(Tuple t) : data(std::move(t)) {}
inline Value::Value(Dict d) : data(std::move(d)) {}
inline Value::Value(BigInt b) : data(std::move(b)) {}

// Builders: tuple({16}) is (16,), list({"a", 1}) is ['a', 1],
// dict({{"format", "mxfp8"}, {"convrot", true}}) is {'format': 'mxfp8', 'convrot': True}.
Value tuple(std::initializer_list<Value> items);
Value list(std::initializer_list<Value> items);
Value dict(std::initializer_list<DictEntry> entries);
Value str_list(const std::vector<std::string>& items);

// repr(s) for a str (CPython's unicode_repr): single quotes unless the string
// has a ' and no ", then double quotes; the delimiter and \ get a backslash;
// \t \n \r; other characters below U+0020 and U+007F as \xhh; non-ASCII
// characters that are not printable as \xhh, \uhhhh or \Uhhhhhhhh (lower-case
// hex); printable ones verbatim.
std::string repr_str(std::string_view utf8);

// repr(x) for a float (CPython's float_repr, format code 'r'): the shortest
// string that round-trips; positional with at least one fractional digit
// ("16.0", "0.0001") unless the decimal exponent is < -4 or >= 16, then
// "1e-05", "1.5e+300" (signed exponent of at least two digits); "inf",
// "-inf", "nan" (never "-nan"); "-0.0".
std::string repr_float(double x);

// format(x, ".{precision}f"): round-half-even on the exact binary value, as
// printf; "inf", "-inf", "nan"; "-0.0" keeps its sign.
std::string format_fixed(double x, int precision);

std::string repr_int(std::int64_t v);
std::string repr_uint(std::uint64_t v);
inline std::string repr_bool(bool b) { return b ? "True" : "False"; }

// repr(v), and the elements of containers with repr: "()" "(16,)" "(8, 64)",
// "[1, 2]", "{'a': 1}", "True", "None".
std::string repr(const Value& v);

// str(v) (what "{v}" prints): a str is itself, anything else is its repr.
std::string str(const Value& v);

// sorted(items) for strs: by code point, which is UTF-8 byte order
// (std::string compares bytes as unsigned char). The optional limit is the
// slice [:limit].
std::vector<std::string> sorted(std::vector<std::string> items,
                                std::size_t limit = std::numeric_limits<std::size_t>::max());
// The same as a Python list of str: repr(sorted_list(names, 5)) prints
// repr(sorted(names)[:5]).
Value sorted_list(std::vector<std::string> items,
                  std::size_t limit = std::numeric_limits<std::size_t>::max());

// str.isprintable() of one code point, from the generated table in
// python_unicode_printable.cpp (tools/gen_unicode_printable.py), and the
// Unicode version of that table.
bool is_printable(char32_t cp);
std::string_view unicode_version();

}  // namespace safespec::py
