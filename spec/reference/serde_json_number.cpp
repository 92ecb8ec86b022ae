// serde_json 1.0.150's number parser (no float_roundtrip): the significand
// kept in a u64 while it fits, the exponent saturated, and the value made by
// scaling with an f64 table of powers of ten, so it is not correctly rounded
// near the f64 limit (1.7976931348623158e308 is "number out of range").
#include <array>
#include <cmath>
#include <cstdint>

#include "spec/reference/serde_json_reader.hpp"

namespace safespec::reference {

namespace {

constexpr std::string_view kInvalidNumber = "invalid number";
constexpr std::string_view kOutOfRange = "number out of range";
constexpr std::uint64_t kU64Max = ~std::uint64_t{0};
constexpr std::int32_t kI32Max = 2147483647;

// POW10[i] = 1e{i} as f64 literals: the table serde_json scales with.
constexpr std::array<double, 309> kPow10 = [] {
  std::array<double, 309> t{};
  // Each entry is the correctly rounded 1e{i}; built from exact products up
  // to 1e22 and from long double elsewhere would round twice, so spell them.
#define SAFESPEC_P(i) t[i] = 1e##i;
#define SAFESPEC_P10(d) SAFESPEC_P(d##0) SAFESPEC_P(d##1) SAFESPEC_P(d##2) SAFESPEC_P(d##3) SAFESPEC_P(d##4) \
  SAFESPEC_P(d##5) SAFESPEC_P(d##6) SAFESPEC_P(d##7) SAFESPEC_P(d##8) SAFESPEC_P(d##9)
  t[0] = 1e0; t[1] = 1e1; t[2] = 1e2; t[3] = 1e3; t[4] = 1e4; t[5] = 1e5; t[6] = 1e6; t[7] = 1e7; t[8] = 1e8; t[9] = 1e9;
  SAFESPEC_P10(1) SAFESPEC_P10(2) SAFESPEC_P10(3) SAFESPEC_P10(4) SAFESPEC_P10(5) SAFESPEC_P10(6) SAFESPEC_P10(7)
  SAFESPEC_P10(8) SAFESPEC_P10(9) SAFESPEC_P10(10) SAFESPEC_P10(11) SAFESPEC_P10(12) SAFESPEC_P10(13)
  SAFESPEC_P10(14) SAFESPEC_P10(15) SAFESPEC_P10(16) SAFESPEC_P10(17) SAFESPEC_P10(18) SAFESPEC_P10(19)
  SAFESPEC_P10(20) SAFESPEC_P10(21) SAFESPEC_P10(22) SAFESPEC_P10(23) SAFESPEC_P10(24) SAFESPEC_P10(25)
  SAFESPEC_P10(26) SAFESPEC_P10(27) SAFESPEC_P10(28) SAFESPEC_P10(29)
  SAFESPEC_P(300) SAFESPEC_P(301) SAFESPEC_P(302) SAFESPEC_P(303) SAFESPEC_P(304) SAFESPEC_P(305)
  SAFESPEC_P(306) SAFESPEC_P(307) SAFESPEC_P(308)
#undef SAFESPEC_P10
#undef SAFESPEC_P
  return t;
}();

}  // namespace

SerdeResult<JsonNumber> JsonReader::parse_any_number(bool positive) {
  if (index_ >= s_.size()) return error(kEofValue);
  const int next = static_cast<unsigned char>(s_[index_++]);
  if (next == '0') {
    if (is_digit(peek())) return peek_error(kInvalidNumber);  // one leading '0' only
    return parse_number(positive, 0);
  }
  if (next < '1' || next > '9') return error(kInvalidNumber);
  std::uint64_t significand = static_cast<std::uint64_t>(next - '0');
  for (;;) {
    const int c = peek();
    if (!is_digit(c)) return parse_number(positive, significand);
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (significand >= kU64Max / 10 && (significand > kU64Max / 10 || digit > kU64Max % 10)) {
      auto f = parse_long_integer(positive, significand);
      if (!f) return f.error();
      return JsonNumber{JsonNumber::Kind::F64, 0, 0, f.value()};
    }
    eat();
    significand = significand * 10 + digit;
  }
}

SerdeResult<JsonNumber> JsonReader::parse_number(bool positive, std::uint64_t significand) {
  const int c = peek();
  if (c == '.' || c == 'e' || c == 'E') {
    auto f = c == '.' ? parse_decimal(positive, significand, 0) : parse_exponent(positive, significand, 0);
    if (!f) return f.error();
    return JsonNumber{JsonNumber::Kind::F64, 0, 0, f.value()};
  }
  if (positive) return JsonNumber{JsonNumber::Kind::U64, significand, 0, 0};
  // (significand as i64).wrapping_neg(): a float on underflow and for -0.
  const std::uint64_t neg_bits = ~significand + 1;
  const auto neg = static_cast<std::int64_t>(neg_bits);
  if (neg >= 0) return JsonNumber{JsonNumber::Kind::F64, 0, 0, -static_cast<double>(significand)};
  return JsonNumber{JsonNumber::Kind::I64, 0, neg, 0};
}

SerdeResult<double> JsonReader::parse_decimal(bool positive, std::uint64_t significand, std::int32_t exponent_before) {
  eat();  // '.'
  std::int32_t exponent_after = 0;
  while (is_digit(peek())) {
    const auto digit = static_cast<std::uint64_t>(peek() - '0');
    if (significand >= kU64Max / 10 && (significand > kU64Max / 10 || digit > kU64Max % 10))
      return parse_decimal_overflow(positive, significand, exponent_before + exponent_after);
    eat();
    significand = significand * 10 + digit;
    exponent_after -= 1;
  }
  if (exponent_after == 0) return peek_error(peek() < 0 ? kEofValue : kInvalidNumber);
  const std::int32_t exponent = exponent_before + exponent_after;
  if (peek() == 'e' || peek() == 'E') return parse_exponent(positive, significand, exponent);
  return f64_from_parts(positive, significand, exponent);
}

SerdeResult<double> JsonReader::parse_exponent(bool positive, std::uint64_t significand, std::int32_t starting_exp) {
  eat();  // 'e' or 'E'
  bool positive_exp = true;
  if (peek() == '+') {
    eat();
  } else if (peek() == '-') {
    eat();
    positive_exp = false;
  }
  if (index_ >= s_.size()) return error(kEofValue);
  const int next = static_cast<unsigned char>(s_[index_++]);
  if (!is_digit(next)) return error(kInvalidNumber);
  std::int32_t exp = next - '0';
  while (is_digit(peek())) {
    const std::int32_t digit = peek() - '0';
    eat();
    if (exp >= kI32Max / 10 && (exp > kI32Max / 10 || digit > kI32Max % 10))
      return parse_exponent_overflow(positive, significand == 0, positive_exp);
    exp = exp * 10 + digit;
  }
  // saturating_add / saturating_sub on i32
  const std::int64_t wide = positive_exp ? std::int64_t{starting_exp} + exp : std::int64_t{starting_exp} - exp;
  const std::int32_t final_exp = wide > kI32Max ? kI32Max : wide < -kI32Max - 1 ? -kI32Max - 1 : static_cast<std::int32_t>(wide);
  return f64_from_parts(positive, significand, final_exp);
}

SerdeResult<double> JsonReader::f64_from_parts(bool positive, std::uint64_t significand, std::int32_t exponent) {
  double f = static_cast<double>(significand);
  for (;;) {
    const std::uint32_t magnitude = exponent < 0 ? 0u - static_cast<std::uint32_t>(exponent) : static_cast<std::uint32_t>(exponent);
    if (magnitude < kPow10.size()) {
      if (exponent >= 0) {
        f *= kPow10[magnitude];
        if (std::isinf(f)) return error(kOutOfRange);
      } else {
        f /= kPow10[magnitude];
      }
      break;
    }
    if (f == 0.0) break;
    if (exponent >= 0) return error(kOutOfRange);
    f /= 1e308;
    exponent += 308;
  }
  return positive ? f : -f;
}

SerdeResult<double> JsonReader::parse_long_integer(bool positive, std::uint64_t significand) {
  std::int32_t exponent = 0;
  for (;;) {
    const int c = peek();
    if (is_digit(c)) {
      eat();
      exponent += 1;  // serde_json ignores the overflow of a gigabytes-long integer; the header is at most 1e8 bytes
    } else if (c == '.') {
      return parse_decimal(positive, significand, exponent);
    } else if (c == 'e' || c == 'E') {
      return parse_exponent(positive, significand, exponent);
    } else {
      return f64_from_parts(positive, significand, exponent);
    }
  }
}

SerdeResult<double> JsonReader::parse_decimal_overflow(bool positive, std::uint64_t significand, std::int32_t exponent) {
  while (is_digit(peek())) eat();  // digits past u64 are ignored
  if (peek() == 'e' || peek() == 'E') return parse_exponent(positive, significand, exponent);
  return f64_from_parts(positive, significand, exponent);
}

SerdeResult<double> JsonReader::parse_exponent_overflow(bool positive, bool zero_significand, bool positive_exp) {
  if (!zero_significand && positive_exp) return error(kOutOfRange);
  while (is_digit(peek())) eat();
  return positive ? 0.0 : -0.0;
}

SerdeResult<JsonNumber> serde_parse_number(std::string_view text) {
  JsonReader r(text);
  const bool negative = r.peek() == '-';
  if (negative) r.eat();
  auto n = r.parse_any_number(!negative);
  if (!n) return n.error();
  if (r.peek() >= 0) return r.peek_error(kInvalidNumber);
  return n;
}

}  // namespace safespec::reference
