// serde_json's default number parser (not correctly rounded; no
// float_roundtrip), as the reference reader parses every number of a tensor
// entry: the reader's implementation (spec/reference/serde_json_reader) held
// against a second, independent one written from the algorithm's statement
// (the same model as shared/reference/.../serde_json_number_model.py), over
// exhaustive boundary sweeps and generated decimal strings.
#include <rapidcheck.h>
#include <rapidcheck/catch.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <cstdint>
#include <optional>
#include <string>

#include "props/catch.hpp"
#include "spec/reference/serde_json_reader.hpp"

using namespace safespec::reference;

namespace {

// The model: significand digits into u64 until it would overflow (later
// integer digits raise the exponent, later fraction digits are dropped), the
// exponent saturated, then f = sig * 10^e by the f64 table with 1e308 steps.
// nullopt: "number out of range". Input: a valid JSON number.
std::optional<double> model(const std::string& t) {
  static const auto pow10 = [] {
    std::array<double, 309> p{};
    for (int i = 0; i < 309; ++i) p[static_cast<std::size_t>(i)] = std::stod("1e" + std::to_string(i));
    return p;
  }();
  constexpr std::uint64_t kU64 = ~std::uint64_t{0};
  // sig * 10 + d fits in u64
  const auto fits = [](std::uint64_t sig, unsigned d) { return sig <= (kU64 - d) / 10; };
  std::size_t i = 0;
  bool pos = true;
  if (t[i] == '-') { pos = false; ++i; }
  std::uint64_t sig = 0;
  long long exp = 0;
  if (t[i] == '0') {
    ++i;
  } else {
    bool over = false;
    for (; i < t.size() && std::isdigit(static_cast<unsigned char>(t[i])); ++i) {
      const int d = t[i] - '0';
      if (!over && fits(sig, static_cast<unsigned>(d))) sig = sig * 10 + static_cast<unsigned>(d);
      else { over = true; ++exp; }
    }
  }
  if (i < t.size() && t[i] == '.') {
    ++i;
    bool over = false;
    for (; i < t.size() && std::isdigit(static_cast<unsigned char>(t[i])); ++i) {
      const int d = t[i] - '0';
      if (over || !fits(sig, static_cast<unsigned>(d))) over = true;
      else { sig = sig * 10 + static_cast<unsigned>(d); --exp; }
    }
  }
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    bool pe = true;
    if (t[i] == '+' || t[i] == '-') { pe = t[i] == '+'; ++i; }
    long long e = 0;
    for (; i < t.size() && std::isdigit(static_cast<unsigned char>(t[i])); ++i) {
      e = e * 10 + (t[i] - '0');
      if (e > 2147483647LL) {
        if (sig != 0 && pe) return std::nullopt;
        return pos ? 0.0 : -0.0;
      }
    }
    exp = pe ? exp + e : exp - e;
    exp = std::max(std::min(exp, 2147483647LL), -2147483648LL);
  }
  double f = static_cast<double>(sig);
  for (;;) {
    if (std::llabs(exp) <= 308) {
      if (exp >= 0) {
        f *= pow10[static_cast<std::size_t>(exp)];
        if (std::isinf(f)) return std::nullopt;
      } else {
        f /= pow10[static_cast<std::size_t>(-exp)];
      }
      break;
    }
    if (f == 0.0) break;
    if (exp >= 0) return std::nullopt;
    f /= 1e308;
    exp += 308;
  }
  return pos ? f : -f;
}

// The reader's answer as the model states it: the f64 value (integers too,
// as the value serde would hold), or nullopt for "number out of range".
std::optional<double> reader(const std::string& t) {
  const SerdeResult<JsonNumber> n = serde_parse_number(t);
  if (!n) {
    REQUIRE(n.error().message == "number out of range");
    return std::nullopt;
  }
  switch (n.value().kind) {
    case JsonNumber::Kind::U64: return static_cast<double>(n.value().u);
    case JsonNumber::Kind::I64: return static_cast<double>(n.value().i);
    case JsonNumber::Kind::F64: break;
  }
  return n.value().f;
}

bool same(std::optional<double> a, std::optional<double> b) {
  if (a.has_value() != b.has_value()) return false;
  if (!a) return true;
  return std::signbit(*a) == std::signbit(*b) && (*a == *b);
}

void check_same(const std::string& t) {
  INFO(t);
  CHECK(same(reader(t), model(t)));
}

}  // namespace

TEST_CASE("serde number: f64 limit sweeps agree with the model (C1-C3 of the minimal files)", "[reference][F6.2]") {
  // Every significand around DBL_MAX's digits, spelled with each split of
  // integer and fraction digits and each exponent that puts it near 1e308.
  for (std::uint64_t s = 17976931348623140ull; s <= 17976931348623160ull; ++s)
    for (int frac = 0; frac <= 19; ++frac) {
      std::string digits = std::to_string(s);
      std::string spelled = frac == 0 ? digits : digits.substr(0, digits.size() - static_cast<std::size_t>(std::min<int>(frac, 16))) + "." + digits.substr(digits.size() - static_cast<std::size_t>(std::min<int>(frac, 16)));
      for (int e = 285; e <= 310; ++e) check_same(spelled + "e" + std::to_string(e));
    }
  // Long mantissas: digits beyond u64 in the integer part and in the fraction.
  for (int extra = 0; extra < 25; ++extra) {
    check_same("1797693134862315" + std::string(static_cast<std::size_t>(extra), '9') + "e" + std::to_string(292 - extra));
    if (extra > 0)
      check_same("17976931348623157" + std::string(static_cast<std::size_t>(extra), '0') + "." +
                 std::string(static_cast<std::size_t>(extra), '5') + "e291");
    check_same("0." + std::string(static_cast<std::size_t>(extra), '0') + "17976931348623158e" + std::to_string(309 + extra));
  }
  CHECK_FALSE(reader("1.7976931348623158e308").has_value());      // below DBL_MAX + half ulp, serde: out of range
  CHECK(reader("1.79769313486231582e308").has_value());            // strtod: inf; serde: finite
  CHECK_FALSE(reader("1.79769313486231563483e308").has_value());
}

TEST_CASE("serde number: exponent overflow and underflow sweeps agree with the model", "[reference][F6.2]") {
  for (const char* mant : {"0", "0.0", "1", "-1", "5e", "123456789012345678901234567890"}) {
    const std::string m = mant;
    if (m.back() == 'e') continue;
    for (const char* e : {"2147483647", "2147483648", "99999999999", "-2147483648", "-2147483649", "-99999999999",
                          "400", "-400", "-324", "-323", "-330", "308", "309", "+308", "+0", "-0"})
      check_same(m + "e" + e);
  }
  for (int e = -345; e <= -300; ++e) {
    check_same("2.2250738585072014e" + std::to_string(e));
    check_same("4.9406564584124654e" + std::to_string(e));
    check_same("123456789e" + std::to_string(e));
  }
}

TEST_CASE("serde number: integers at the u64/i64 edges keep serde_json's kinds", "[reference][F6.2]") {
  CHECK(serde_parse_number("18446744073709551615").value().kind == JsonNumber::Kind::U64);
  CHECK(serde_parse_number("18446744073709551616").value().kind == JsonNumber::Kind::F64);
  CHECK(serde_parse_number("-9223372036854775808").value().kind == JsonNumber::Kind::I64);
  CHECK(serde_parse_number("-9223372036854775809").value().kind == JsonNumber::Kind::F64);
  CHECK(std::signbit(serde_parse_number("-0").value().f));
  CHECK(serde_parse_number("100000000000000000000.").error().display() == "EOF while parsing a value at line 1 column 22");
  CHECK(serde_parse_number("100000000000000000000.x").error().display() == "invalid number at line 1 column 23");
  CHECK(serde_parse_number("01").error().display() == "invalid number at line 1 column 2");
  CHECK(serde_parse_number("1.").error().display() == "EOF while parsing a value at line 1 column 2");
  CHECK(serde_parse_number("1e400").error().display() == "number out of range at line 1 column 5");
}

TEST_CASE("serde number: generated decimal strings agree with the model", "[reference][F6.2][property]") {
  const bool ok = rc::check("reader == model on decimal strings", [] {
    const auto digits = [](int lo, int hi) {
      const int n = *rc::gen::inRange(lo, hi);
      std::string s;
      for (int i = 0; i < n; ++i) s += static_cast<char>('0' + *rc::gen::inRange(0, 10));
      return s;
    };
    std::string t = *rc::gen::element(std::string(""), std::string("-"));
    std::string int_part = digits(1, 30);
    if (int_part.size() > 1 && int_part[0] == '0') int_part[0] = static_cast<char>('1' + *rc::gen::inRange(0, 9));
    t += int_part;
    if (*rc::gen::arbitrary<bool>()) t += "." + digits(1, 30);
    if (*rc::gen::arbitrary<bool>()) {
      t += *rc::gen::element(std::string("e"), std::string("E"), std::string("e+"), std::string("e-"));
      t += std::to_string(*rc::gen::inRange(0, 700));
    }
    RC_ASSERT(same(reader(t), model(t)));
  });
  CHECK(ok);
}
