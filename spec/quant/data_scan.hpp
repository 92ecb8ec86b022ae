// The scans behind the data rules (data_rules.cpp), each fed a tensor's bytes
// piece by piece (TensorData::scan) and keeping only a few counters: the
// count of bad elements, the first one's index and value. Pieces are
// multiples of kDataChunkAlign bytes except the last, so an element never
// straddles two, and fed in order, so "the first" is the first in the tensor.
// The loops are written for speed (--data reads gigabytes): one branch-free
// count per piece, and only a piece that holds a bad element is searched for
// the first one.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string_view>

#include "spec/dtype.hpp"
#include "spec/number_formats.hpp"

namespace safespec::quant::scan {

using Bytes = std::span<const std::uint8_t>;

// How a scale's bytes are read as numbers: the tensor's own dtype, except
// that a U8 tensor is read as E4M3 where ComfyUI views it so (nvfp4
// weight_scale, W4A8 weight_s_rel: comfy-quant-markers.md §2.1 "Scales are
// reinterpreted").
enum class Reading : unsigned char { E4M3, E5M2, F16, BF16, F32, F64 };

inline std::optional<Reading> reading_of(Dtype d, bool u8_as_e4m3) {
  switch (d) {
    case Dtype::F8_E4M3: return Reading::E4M3;
    case Dtype::F8_E5M2: return Reading::E5M2;
    case Dtype::F16: return Reading::F16;
    case Dtype::BF16: return Reading::BF16;
    case Dtype::F32: return Reading::F32;
    case Dtype::F64: return Reading::F64;
    case Dtype::U8: return u8_as_e4m3 ? std::optional(Reading::E4M3) : std::nullopt;
    default: return std::nullopt;  // integer scales are value-cast, not floats of these formats
  }
}

inline std::string_view reading_name(Reading r) {
  switch (r) {
    case Reading::E4M3: return "F8_E4M3";
    case Reading::E5M2: return "F8_E5M2";
    case Reading::F16: return "F16";
    case Reading::BF16: return "BF16";
    case Reading::F32: return "F32";
    case Reading::F64: return "F64";
  }
  return "";
}

inline std::size_t width(Reading r) {
  switch (r) {
    case Reading::E4M3:
    case Reading::E5M2: return 1;
    case Reading::F16:
    case Reading::BF16: return 2;
    case Reading::F32: return 4;
    case Reading::F64: return 8;
  }
  return 1;
}

// Little-endian assembly byte by byte: tensor data has no alignment promise.
inline std::uint16_t le16(const std::uint8_t* p) { return static_cast<std::uint16_t>(p[0] | (p[1] << 8)); }
inline std::uint32_t le32(const std::uint8_t* p) {
  return std::uint32_t{p[0]} | (std::uint32_t{p[1]} << 8) | (std::uint32_t{p[2]} << 16) | (std::uint32_t{p[3]} << 24);
}
inline std::uint64_t le64(const std::uint8_t* p) { return std::uint64_t{le32(p)} | (std::uint64_t{le32(p + 4)} << 32); }

template <Reading R>
double decode(const std::uint8_t* p) {
  if constexpr (R == Reading::E4M3) return num::decode_e4m3fn(p[0]);
  else if constexpr (R == Reading::E5M2) return num::decode_e5m2(p[0]);
  else if constexpr (R == Reading::F16) return num::f16_to_f32(le16(p));
  else if constexpr (R == Reading::BF16) return num::bf16_to_f32(le16(p));
  else if constexpr (R == Reading::F32) return std::bit_cast<float>(le32(p));
  else return std::bit_cast<double>(le64(p));
}

// The same, with the reading known only at run time (short tensors such as a
// codebook; the long loops below are instantiated per reading).
inline double decode(Reading r, const std::uint8_t* p) {
  switch (r) {
    case Reading::E4M3: return decode<Reading::E4M3>(p);
    case Reading::E5M2: return decode<Reading::E5M2>(p);
    case Reading::F16: return decode<Reading::F16>(p);
    case Reading::BF16: return decode<Reading::BF16>(p);
    case Reading::F32: return decode<Reading::F32>(p);
    case Reading::F64: return decode<Reading::F64>(p);
  }
  return 0;
}

// The first offending element and how many there are, of `total`.
struct Bad {
  std::uint64_t count = 0;
  std::uint64_t first = 0;
  double value = 0;
  std::uint64_t total = 0;

  void note(std::uint64_t index, double v) {
    if (count++ == 0) {
      first = index;
      value = v;
    }
  }
};

// Elements read as `r` that fail `bad` (a pure function of the value). A
// one-byte reading is judged through a 256-entry table built once, so the
// loop is a table lookup per byte instead of a decode.
template <class Pred>
class ValueScan {
 public:
  ValueScan(Reading r, Pred bad) : r_(r), bad_(bad) {
    if (width(r) != 1) return;
    for (unsigned c = 0; c < 256; ++c) {
      const std::uint8_t b = static_cast<std::uint8_t>(c);
      table_[c] = bad_(r == Reading::E4M3 ? decode<Reading::E4M3>(&b) : decode<Reading::E5M2>(&b)) ? 1 : 0;
    }
  }

  void operator()(Bytes b) {
    switch (r_) {
      case Reading::E4M3: bytes<Reading::E4M3>(b); break;
      case Reading::E5M2: bytes<Reading::E5M2>(b); break;
      case Reading::F16: values<Reading::F16>(b); break;
      case Reading::BF16: values<Reading::BF16>(b); break;
      case Reading::F32: values<Reading::F32>(b); break;
      case Reading::F64: values<Reading::F64>(b); break;
    }
  }

  // The result once every piece was fed: total is every whole element.
  const Bad& result() { return out_; }

 private:
  template <Reading R>
  void bytes(Bytes b) {
    std::uint64_t n = 0;
    for (std::uint8_t x : b) n += table_[x];
    if (n != 0 && out_.count == 0) {
      const std::size_t i = static_cast<std::size_t>(
          std::find_if(b.begin(), b.end(), [this](std::uint8_t x) { return table_[x] != 0; }) - b.begin());
      out_.first = out_.total + i;
      out_.value = decode<R>(&b[i]);
    }
    out_.count += n;
    out_.total += b.size();
  }

  template <Reading R>
  void values(Bytes b) {
    constexpr std::size_t w = R == Reading::F16 || R == Reading::BF16 ? 2 : R == Reading::F32 ? 4 : 8;
    const std::size_t n = b.size() / w;
    for (std::size_t i = 0; i < n; ++i) {
      const double v = decode<R>(b.data() + i * w);
      if (bad_(v)) out_.note(out_.total + i, v);
    }
    out_.total += n;
  }

  Reading r_;
  Pred bad_;
  std::array<std::uint8_t, 256> table_{};
  Bad out_;
};

// Bytes equal to `code` (0x80 in an int8 weight, 0xFF in an E8M0 scale).
// memchr (the C library's vectorised search) finds that a piece has none at
// memory speed, the common case; only from the first one on is it counted.
class ByteScan {
 public:
  explicit ByteScan(std::uint8_t code) : code_(code) {}
  void operator()(Bytes b) {
    const void* hit = b.empty() ? nullptr : std::memchr(b.data(), code_, b.size());
    if (hit) {
      const auto at = static_cast<std::size_t>(static_cast<const std::uint8_t*>(hit) - b.data());
      if (out_.count == 0) out_.first = out_.total + at;
      out_.count += static_cast<std::uint64_t>(std::count(b.begin() + static_cast<std::ptrdiff_t>(at), b.end(), code_));
    }
    out_.total += b.size();
  }
  const Bad& result() const { return out_; }

 private:
  std::uint8_t code_;
  Bad out_;
};

// Packed int4 codes equal to -8 (nibble 8), low nibble first; indexes and the
// total count elements, two a byte.
class NibbleScan {
 public:
  void operator()(Bytes b) {
    std::uint64_t n = 0;
    std::size_t i = 0;
    // Eight bytes at a time: a nibble is 8 exactly when it is zero after
    // x ^ 0x88..; folding each nibble's bits into its lowest (masks keep
    // them from crossing nibbles) leaves that bit 0 for a zero nibble.
    for (; i + 8 <= b.size(); i += 8) {
      std::uint64_t x;
      std::memcpy(&x, b.data() + i, 8);
      std::uint64_t y = x ^ 0x8888888888888888ull;
      y |= (y >> 1) & 0x7777777777777777ull;
      y |= (y >> 2) & 0x3333333333333333ull;
      // The 16 flag bits summed by bytes (std::popcount is a library call
      // on the baseline x86-64 target): each byte holds 0..2, the total <= 16.
      const std::uint64_t z = ~y & 0x1111111111111111ull;
      n += (((z + (z >> 4)) & 0x0F0F0F0F0F0F0F0Full) * 0x0101010101010101ull) >> 56;
    }
    for (; i < b.size(); ++i) n += static_cast<std::uint64_t>(((b[i] & 0xF) == 8) + ((b[i] >> 4) == 8));
    if (n != 0 && out_.count == 0) {
      for (std::size_t i = 0; i < b.size(); ++i) {
        if ((b[i] & 0xF) != 8 && (b[i] >> 4) != 8) continue;
        out_.first = out_.total + 2 * i + ((b[i] & 0xF) == 8 ? 0 : 1);
        break;
      }
    }
    out_.count += n;
    out_.total += std::uint64_t{b.size()} * 2;
  }
  const Bad& result() const { return out_; }

 private:
  Bad out_;
};

// CQ-DATA-SWIZZLE-PADDING's scan of a swizzled [R', C'] block-scale matrix of
// `rows` x `cols` real cells: non-zero bytes in padding cells. The matrix is
// tiles of 128 x 4 cells, 512 bytes each (quant-numerics.md §4); a tile with
// no padding cell is skipped whole, so a real matrix costs a few tiles.
class PaddingScan {
 public:
  // tiles: C' / 4, tiles per row of tiles.
  PaddingScan(std::uint64_t rows, std::uint64_t cols, std::uint64_t tiles) : rows_(rows), cols_(cols), tiles_(tiles) {}

  void operator()(Bytes b) {
    std::size_t i = 0;
    while (i < b.size()) {
      const std::uint64_t off = offset_ + i;
      const std::uint64_t q = off / 512;
      const std::size_t tile_end = static_cast<std::size_t>(std::min<std::uint64_t>((q + 1) * 512 - offset_, b.size()));
      if (!has_padding(q)) {
        i = tile_end;
        continue;
      }
      for (; i < tile_end; ++i) {
        if (b[i] == 0) continue;
        // The inverse of L3's offset formula (quant-numerics.md §4).
        const std::uint64_t in = (offset_ + i) % 512;
        const std::uint64_t r = (q / tiles_) * 128 + ((in % 16) / 4) * 32 + in / 16;
        const std::uint64_t c = (q % tiles_) * 4 + in % 4;
        if (r < rows_ && c < cols_) continue;
        if (out_.count++ == 0) {
          out_.first = offset_ + i;
          out_.value = b[i];
          first_row = r;
          first_col = c;
        }
      }
    }
    offset_ += b.size();
  }
  const Bad& result() const { return out_; }
  std::uint64_t bytes() const { return offset_; }
  std::uint64_t first_row = 0;
  std::uint64_t first_col = 0;

 private:
  // Whether tile q holds a cell past the real rows or columns.
  bool has_padding(std::uint64_t q) const {
    return (q / tiles_ + 1) * 128 > rows_ || (q % tiles_ + 1) * 4 > cols_;
  }
  std::uint64_t rows_, cols_, tiles_;
  std::uint64_t offset_ = 0;
  Bad out_;
};

}  // namespace safespec::quant::scan
