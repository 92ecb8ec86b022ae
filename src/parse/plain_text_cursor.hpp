// The text cursor of the one-pass plain readers (a header, src/parse/plain_header.cpp;
// a shard index, src/parse/plain_index.cpp): whitespace, punctuation, JSON strings
// and non-negative integers, each method false as soon as the text is not
// plain. Inline in a header of its own: it is the readers' inner loop, and
// their files stay readable.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "spec/json_text.hpp"
#include "spec/utf8.hpp"

namespace safespec::plain {

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
inline constexpr std::uint64_t kPow10[9] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000};

// How many of the eight bytes in `word` (first byte lowest) are ASCII digits
// before the first that is not. A digit is 0x3_ whose low nibble plus 6 does
// not carry; a carry out of a byte (0xFA and up) only disturbs the bytes
// after it, which are past the first non-digit.
inline unsigned leading_digits(std::uint64_t word) {
  constexpr std::uint64_t high = 0xF0F0F0F0F0F0F0F0u, threes = 0x3030303030303030u, sixes = 0x0606060606060606u;
  const std::uint64_t bad = ((word & high) ^ threes) | (((word + sixes) & high) ^ threes);
  return bad == 0 ? 8u : static_cast<unsigned>(__builtin_ctzll(bad)) / 8u;
}

// The value of the first n (1-8) digits of `word`. They are moved to the top
// bytes, so the zero bytes below read as leading zeros, then pairs, fours and
// the eight are folded: each step's lanes hold at most 99, 9999, 99999999
// and cannot carry into the next.
inline std::uint64_t digits_value(std::uint64_t word, unsigned n) {
  std::uint64_t v = word - 0x3030303030303030u;  // a borrow only runs to bytes past the digits
  if (n < 8) v <<= 8 * (8 - n);
  v = (v * 10 + (v >> 8)) & 0x00FF00FF00FF00FFu;
  v = (v * 100 + (v >> 16)) & 0x0000FFFF0000FFFFu;
  return (v * 10000 + (v >> 32)) & 0x00000000FFFFFFFFu;
}
#endif

// A text cursor; every method returns false as soon as the text is not
// plain, and the reader then discards what it built (a Header, an index).
class Reader {
 public:
  void reset(std::string_view text) {
    p_ = text.data();
    end_ = text.data() + text.size();
  }

  void skip_space() {
    while (p_ < end_ && is_json_space(*p_)) ++p_;
  }
  bool at_end() const { return p_ == end_; }
  // The next byte after whitespace is `c`; consumes it.
  bool eat(char c) {
    skip_space();
    if (p_ == end_ || *p_ != c) return false;
    ++p_;
    return true;
  }
  // After whitespace, the next byte is `c` (not consumed).
  bool peek(char c) {
    skip_space();
    return p_ < end_ && *p_ == c;
  }
  // A literal word (null) at the cursor, after whitespace.
  bool word(std::string_view w) {
    skip_space();
    return literal(w);
  }

  // A JSON string, decoded. The view points into the text when the string
  // has no escape (nearly always), else into `decoded` (scratch_ unless the
  // caller keeps it apart), valid until that buffer is decoded into again. Raw bytes must be UTF-8 and no control character (F5, JSON).
  bool string(std::string_view& out) { return string(out, scratch_); }
  bool string(std::string_view& out, std::string& decoded) {
    if (!eat('"')) return false;
    const char* start = p_;
    bool high = false;
    while (p_ < end_) {
      skip_plain_words();
      if (p_ == end_) break;
      const unsigned char c = static_cast<unsigned char>(*p_);
      if (c == '"') {
        out = std::string_view(start, static_cast<std::size_t>(p_ - start));
        ++p_;
        return !high || !first_invalid_utf8(out);
      }
      if (c == '\\') return escaped(start, high, out, decoded);
      if (c < 0x20) return false;
      high |= c >= 0x80;
      ++p_;
    }
    return false;
  }

  // A non-negative integer that fits in u64, as serde_json and the reference
  // reader read it; a sign, a fraction or an exponent is not plain.
  bool u64(std::uint64_t& out) {
    skip_space();
    if (p_ == end_ || *p_ < '0' || *p_ > '9') return false;
    std::uint64_t v = 0;
    if (*p_ == '0') {
      ++p_;
    } else {
      // Up to eight digits a step while eight bytes are left (a byte a step
      // near the window's end), overflow checked once a step. A local
      // cursor: p_ is a member the compiler would store on every digit.
      const char* p = p_;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
      while (end_ - p >= 8) {
        std::uint64_t word;
        std::memcpy(&word, p, 8);
        const unsigned n = leading_digits(word);
        if (n == 0) break;
        if (__builtin_mul_overflow(v, kPow10[n], &v) || __builtin_add_overflow(v, digits_value(word, n), &v)) {
          p_ = p;
          return false;
        }
        p += n;
        if (n < 8) break;
      }
#endif
      while (p < end_ && *p >= '0' && *p <= '9') {
        if (__builtin_mul_overflow(v, std::uint64_t{10}, &v) ||
            __builtin_add_overflow(v, static_cast<std::uint64_t>(*p - '0'), &v)) {
          p_ = p;
          return false;
        }
        ++p;
      }
      p_ = p;
    }
    if (p_ < end_ && (*p_ == '.' || *p_ == 'e' || *p_ == 'E' || (*p_ >= '0' && *p_ <= '9'))) return false;
    out = v;
    return true;
  }

  const char* position() const { return p_; }
  void rewind(const char* to) { p_ = to; }  // back to an earlier position()
  bool at(char c) const { return p_ < end_ && *p_ == c; }  // the next byte, no whitespace first

  // Exactly the bytes `w` at the cursor (no whitespace first); consumes them.
  bool literal(std::string_view w) {
    if (static_cast<std::size_t>(end_ - p_) < w.size() || std::memcmp(p_, w.data(), w.size()) != 0) return false;
    p_ += w.size();
    return true;
  }

  // After an array's '[' (and a first element): how many elements it holds if
  // it is plain, counting commas up to the ']' (an upper bound otherwise, and
  // never more than the bytes left; the reading then decides).
  std::size_t count_elements() const {
    std::size_t n = 1;
    for (const char* q = p_; q < end_ && *q != ']'; ++q) n += *q == ',';
    return n;
  }

  // Moves past bytes that cannot end a plain run of string ('"', '\\', a
  // control character, a non-ASCII byte) and stops at the first that can:
  // names are most of a header. SSE2 (every x86-64) takes 16 bytes a step,
  // and one signed compare finds both control and non-ASCII bytes (as signed
  // chars both are below 0x20); elsewhere 8-byte words (any byte < n, for
  // n <= 128: (x - n * ones) & ~x & high is non-zero exactly then).
  void skip_plain_words() {
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'), space = _mm_set1_epi8(0x20);
    while (end_ - p_ >= 16) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p_));
      const __m128i stop =
          _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)), _mm_cmplt_epi8(v, space));
      if (const int mask = _mm_movemask_epi8(stop); mask != 0) {
        p_ += __builtin_ctz(static_cast<unsigned>(mask));
        return;
      }
      p_ += 16;
    }
#endif
    constexpr std::uint64_t ones = 0x0101010101010101u, high = 0x8080808080808080u;
    const auto any_below = [](std::uint64_t x, std::uint64_t n) { return (x - n * ones) & ~x & high; };
    while (end_ - p_ >= 8) {
      std::uint64_t w;
      std::memcpy(&w, p_, 8);
      if ((w & high) | any_below(w, 0x20) | any_below(w ^ ('"' * ones), 1) | any_below(w ^ ('\\' * ones), 1)) return;
      p_ += 8;
    }
  }

 private:
  const char* p_ = nullptr;
  const char* end_ = nullptr;
  std::string scratch_;

  // The rest of a string from its first backslash, decoded into `decoded`.
  // A lone surrogate is not plain (the readers disagree on it at most in
  // their messages, which the reference reader writes).
  bool escaped(const char* start, bool high, std::string_view& out, std::string& decoded) {
    decoded.assign(start, static_cast<std::size_t>(p_ - start));
    std::size_t raw_from = 0;  // where the raw bytes not yet validated begin
    bool raw_high = high;
    const auto check_raw = [&] { return !raw_high || !first_invalid_utf8(std::string_view(decoded).substr(raw_from)); };
    while (p_ < end_) {
      const unsigned char c = static_cast<unsigned char>(*p_);
      if (c == '"') {
        ++p_;
        if (!check_raw()) return false;
        out = decoded;
        return true;
      }
      if (c < 0x20) return false;
      if (c != '\\') {
        raw_high |= c >= 0x80;
        decoded += static_cast<char>(c);
        ++p_;
        continue;
      }
      if (!check_raw()) return false;
      const auto e = read_json_escape(std::string_view(p_ + 1, static_cast<std::size_t>(end_ - p_ - 1)));
      if (!e) return false;
      append_utf8(decoded, e->code_point);
      p_ += 1 + e->length;
      raw_from = decoded.size();
      raw_high = false;
    }
    return false;
  }
};

}  // namespace safespec::plain
