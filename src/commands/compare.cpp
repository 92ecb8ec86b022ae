#include "src/commands/compare.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <map>
#include <span>

#include "spec/number_formats.hpp"
#include "src/report/json_escape.hpp"
#include "src/parse/compare_inputs.hpp"

namespace safespec {

namespace {

std::uint64_t load_le(std::span<const std::uint8_t> b) {
  std::uint64_t u = 0;
  for (std::size_t i = 0; i < b.size() && i < 8; ++i) u |= std::uint64_t{b[i]} << (8 * i);
  return u;
}

// The value of a float element as binary64, for the dtypes with an order.
std::optional<double> float_value(Dtype d, std::uint64_t u) {
  switch (d) {
    case Dtype::F64: return std::bit_cast<double>(u);
    case Dtype::F32: return std::bit_cast<float>(static_cast<std::uint32_t>(u));
    case Dtype::F16: return num::f16_to_f32(static_cast<std::uint16_t>(u));
    case Dtype::BF16: return num::bf16_to_f32(static_cast<std::uint16_t>(u));
    case Dtype::F8_E4M3: return num::decode_e4m3fn(static_cast<std::uint8_t>(u));
    case Dtype::F8_E5M2: return num::decode_e5m2(static_cast<std::uint8_t>(u));
    default: return std::nullopt;
  }
}

bool is_unsigned_int(Dtype d) {
  return d == Dtype::BOOL || d == Dtype::U8 || d == Dtype::U16 || d == Dtype::U32 || d == Dtype::U64;
}

// Two's complement sign extension of a `bits`-wide integer, without going
// through binary64 (which cannot hold every int64).
std::int64_t sign_extend(std::uint64_t u, std::uint32_t bits) {
  if (bits >= 64) return static_cast<std::int64_t>(u);
  const std::uint64_t sign = std::uint64_t{1} << (bits - 1);
  return static_cast<std::int64_t>((u ^ sign) - sign);
}

bool is_signed_int(Dtype d) { return d == Dtype::I8 || d == Dtype::I16 || d == Dtype::I32 || d == Dtype::I64; }

}  // namespace

ElementDistance element_distance(Dtype d, std::span<const std::uint8_t> eb, std::span<const std::uint8_t> ab) {
  const std::uint32_t bits = dtype_bits(d);
  const std::uint64_t e = load_le(eb), a = load_le(ab);
  ElementDistance r;
  if (const auto ev = float_value(d, e)) {
    const double av = *float_value(d, a);
    if (std::isnan(*ev) || std::isnan(av)) {
      r.ulps = std::isnan(*ev) && std::isnan(av) ? std::optional<std::uint64_t>(0) : std::nullopt;
      if (!r.ulps) r.abs_err = r.rel_err = INFINITY;
      return r;
    }
    const std::uint64_t sign = std::uint64_t{1} << (bits - 1);
    const std::uint64_t me = e & (sign - 1), ma = a & (sign - 1);
    r.ulps = (e & sign) == (a & sign) ? (me > ma ? me - ma : ma - me) : me + ma;
    r.abs_err = *ev == av ? 0.0 : std::fabs(*ev - av);
    r.rel_err = r.abs_err == 0 ? 0.0 : *ev == 0 ? INFINITY : r.abs_err / std::fabs(*ev);
    return r;
  }
  if (is_signed_int(d) || is_unsigned_int(d)) {
    double ev = 0;
    if (is_signed_int(d)) {
      const std::int64_t se = sign_extend(e, bits), sa = sign_extend(a, bits);
      // The difference of two int64 can pass INT64_MAX; its magnitude fits uint64.
      r.ulps = se > sa ? static_cast<std::uint64_t>(se) - static_cast<std::uint64_t>(sa)
                       : static_cast<std::uint64_t>(sa) - static_cast<std::uint64_t>(se);
      ev = static_cast<double>(se);
    } else {
      r.ulps = e > a ? e - a : a - e;
      ev = static_cast<double>(e);
    }
    r.abs_err = static_cast<double>(*r.ulps);
    r.rel_err = r.abs_err == 0 ? 0.0 : ev == 0 ? INFINITY : r.abs_err / std::fabs(ev);
    return r;
  }
  if (std::equal(eb.begin(), eb.end(), ab.begin(), ab.end())) {
    r.ulps = 0;
    return r;
  }
  r.ulps = std::nullopt;
  r.abs_err = r.rel_err = INFINITY;
  return r;
}

std::optional<double> element_value(Dtype d, std::span<const std::uint8_t> b) {
  const std::uint64_t u = load_le(b);
  if (is_signed_int(d)) return static_cast<double>(sign_extend(u, dtype_bits(d)));
  if (is_unsigned_int(d)) return static_cast<double>(u);
  return float_value(d, u);
}

bool Tolerance::passes(const ElementDistance& d, std::optional<double> expected, std::optional<double> actual) const {
  if (d.ulps && *d.ulps <= ulps) return true;
  if ((atol == 0 && rtol == 0) || !expected || !actual) return false;
  if (!std::isfinite(*expected) || !std::isfinite(*actual)) return false;
  return d.abs_err <= atol + rtol * std::fabs(*expected);
}

std::size_t ulp_bucket(std::optional<std::uint64_t> ulps) {
  if (!ulps || *ulps >= 16) return 4;
  if (*ulps >= 4) return 3;
  if (*ulps >= 2) return 2;
  return static_cast<std::size_t>(*ulps);
}

TensorComparison compare_tensor(std::string name, Dtype dtype, std::vector<std::uint64_t> shape,
                                std::span<const std::uint8_t> expected, std::span<const std::uint8_t> actual,
                                std::uint64_t tolerance_ulps) {
  return compare_tensor(std::move(name), dtype, std::move(shape), expected, actual, Tolerance{tolerance_ulps, 0, 0});
}

TensorComparison compare_tensor(std::string name, Dtype dtype, std::vector<std::uint64_t> shape,
                                std::span<const std::uint8_t> expected, std::span<const std::uint8_t> actual,
                                const Tolerance& tolerance) {
  TensorComparison t;
  t.name = std::move(name);
  t.dtype = dtype;
  t.shape = std::move(shape);
  const std::uint32_t bits = dtype_bits(dtype);
  if (expected.size() == actual.size()) t.first = first_difference(dtype, t.shape, expected, actual);
  if (bits % 8 != 0 || expected.size() != actual.size()) {
    // Sub-byte dtypes are compared as whole bytes: equal, or infinitely far.
    t.count = expected.size();
    t.bit_exact = std::equal(expected.begin(), expected.end(), actual.begin(), actual.end()) ? t.count : 0;
    if (t.bit_exact != t.count) t.max_ulps = std::nullopt, t.max_abs = t.max_rel = INFINITY;
    t.histogram[t.bit_exact == t.count ? 0 : kUlpBuckets - 1] = t.count;
    t.beyond = t.count - t.bit_exact;
    t.within = t.bit_exact == t.count;
    return t;
  }
  const std::size_t w = bits / 8;
  t.count = expected.size() / w;
  std::optional<std::uint64_t> worst_at;      // the first element the furthest apart
  std::optional<std::uint64_t> worst_ulps = 0;  // its distance (nullopt: infinite)
  for (std::size_t i = 0; i < t.count; ++i) {
    const auto eb = expected.subspan(i * w, w), ab = actual.subspan(i * w, w);
    if (std::equal(eb.begin(), eb.end(), ab.begin())) {
      ++t.bit_exact;
      ++t.histogram[0];
      continue;
    }
    const ElementDistance d = element_distance(dtype, eb, ab);
    ++t.histogram[ulp_bucket(d.ulps)];
    if (!tolerance.passes(d, element_value(dtype, eb), element_value(dtype, ab))) ++t.beyond;
    if (!d.ulps) t.max_ulps = std::nullopt;
    else if (t.max_ulps) t.max_ulps = std::max(*t.max_ulps, *d.ulps);
    if (!worst_at || (worst_ulps && (!d.ulps || *d.ulps > *worst_ulps))) {
      worst_at = i;
      worst_ulps = d.ulps;
    }
    t.max_abs = std::max(t.max_abs, d.abs_err);
    t.max_rel = std::max(t.max_rel, d.rel_err);
  }
  t.within = t.beyond == 0;
  if (worst_at) t.worst = difference_at(dtype, t.shape, expected, actual, *worst_at);
  return t;
}

std::string histogram_text(const TensorComparison& t) {
  std::string out = "ulps";
  for (std::size_t b = 0; b < kUlpBuckets; ++b)
    out += (b ? ", " : " ") + std::string(kUlpBucketNames[b]) + ": " + std::to_string(t.histogram[b]);
  return out;
}

std::string tolerance_text(const Tolerance& t) {
  std::string out = std::to_string(t.ulps) + " ulps";
  if (t.atol != 0 || t.rtol != 0) out += " or " + number_text(t.atol) + " + " + number_text(t.rtol) + " * |expected|";
  return out;
}

std::string render_comparison(const Comparison& c, const Tolerance& tolerance) {
  std::string out;
  std::size_t beyond = 0;
  for (const TensorComparison& t : c.tensors) {
    out += t.name + ": ";
    if (!t.mismatch.empty()) {
      out += t.mismatch + ": FAIL\n";
      ++beyond;
      continue;
    }
    out += std::string(dtype_name(t.dtype)) + " " + shape_text(t.shape) + ": " + std::to_string(t.bit_exact) + "/" +
           std::to_string(t.count) + " bit-exact, max " + (t.max_ulps ? std::to_string(*t.max_ulps) : "inf") +
           " ulps, max abs err " + number_text(t.max_abs) + ", max rel err " + number_text(t.max_rel) + (t.within ? ": ok\n" : ": FAIL\n");
    if (t.first && t.bit_exact != t.count)
      out += "  " + histogram_text(t) + "; " + std::to_string(t.beyond) + "/" + std::to_string(t.count) +
             " beyond the tolerance; first difference at " + t.first->position + ": expected " + t.first->expected +
             ", got " + t.first->actual + "\n";
    if (t.worst && t.first && t.worst->index != t.first->index)
      out += "  worst difference (" + (t.max_ulps ? std::to_string(*t.max_ulps) + " ulps" : std::string("inf ulps")) +
             ") at " + t.worst->position + ": expected " + t.worst->expected + ", got " + t.worst->actual + "\n";
    if (!t.within) ++beyond;
  }
  const std::string n = std::to_string(c.tensors.size()) + (c.tensors.size() == 1 ? " tensor" : " tensors");
  out += "compare: " + n + ", " +
         (beyond == 0 ? "all within " : std::to_string(beyond) + " beyond ") + tolerance_text(tolerance) + "\n";
  return out;
}

namespace {

// A JSON number, or null for what JSON cannot write (infinities, NaN).
std::string json_number(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

}  // namespace

std::string render_comparison_json(const Comparison& c, const Tolerance& tolerance) {
  std::string out = "{\"schema\":1,\"tolerance\":{\"ulps\":" + std::to_string(tolerance.ulps) +
                    ",\"atol\":" + json_number(tolerance.atol) + ",\"rtol\":" + json_number(tolerance.rtol) +
                    "},\"tensors\":[";
  for (std::size_t i = 0; i < c.tensors.size(); ++i) {
    const TensorComparison& t = c.tensors[i];
    out += i ? ",{\"name\":" : "{\"name\":";
    append_json_string(out, t.name);
    out += ",\"ok\":" + std::string(t.within ? "true" : "false") + ",\"error\":";
    if (!t.mismatch.empty()) {
      append_json_string(out, t.mismatch);
      out += "}";
      continue;
    }
    out += "null,\"dtype\":\"" + std::string(dtype_name(t.dtype)) + "\",\"shape\":[";
    for (std::size_t d = 0; d < t.shape.size(); ++d) out += (d ? "," : "") + std::to_string(t.shape[d]);
    out += "],\"count\":" + std::to_string(t.count) + ",\"bit_exact\":" + std::to_string(t.bit_exact) +
           ",\"beyond\":" + std::to_string(t.beyond) +
           ",\"max_ulps\":" + (t.max_ulps ? std::to_string(*t.max_ulps) : std::string("null")) +
           ",\"max_abs_err\":" + json_number(t.max_abs) + ",\"max_rel_err\":" + json_number(t.max_rel) +
           ",\"histogram\":{";
    for (std::size_t b = 0; b < kUlpBuckets; ++b)
      out += (b ? ",\"" : "\"") + std::string(kUlpBucketNames[b]) + "\":" + std::to_string(t.histogram[b]);
    const auto difference = [&out](const std::optional<FirstDifference>& d) {
      if (!d) {
        out += "null";
        return;
      }
      out += "{\"index\":" + std::to_string(d->index) + ",\"position\":";
      append_json_string(out, d->position);
      out += ",\"expected\":";
      append_json_string(out, d->expected);
      out += ",\"actual\":";
      append_json_string(out, d->actual);
      out += "}";
    };
    out += "},\"first_difference\":";
    difference(t.first);
    // The first element the furthest apart; its distance is max_ulps.
    out += ",\"worst_difference\":";
    difference(t.worst);
    out += "}";
  }
  return out + "],\"ok\":" + (c.within ? "true" : "false") + "}\n";
}

CommandOutcome run_compare(const std::string& expected, const std::string& actual, const Tolerance& tolerance,
                           bool json) {
  auto e = CompareInput::open(expected);
  if (!e) return {2, "", "safespec: " + e.error() + "\n"};
  auto a = CompareInput::open(actual);
  if (!a) return {2, "", "safespec: " + a.error() + "\n"};
  e.value().name_after(a.value());
  a.value().name_after(e.value());
  std::map<std::string, int> names;  // 1 expected, 2 actual, 3 both
  for (const std::string& n : e.value().names()) names[n] |= 1;
  for (const std::string& n : a.value().names()) names[n] |= 2;
  Comparison c;
  std::string unread;  // why the first tensor that could not be read was not compared
  for (const auto& [name, where] : names) {
    TensorComparison t;
    t.name = name;
    if (where != 3) {
      t.mismatch = where == 1 ? "only in EXPECTED" : "only in ACTUAL";
    } else {
      // A .npy's '<u2' is the other side's BF16 when it is one.
      e.value().read_u16_as(a.value().find(name)->dtype);
      a.value().read_u16_as(e.value().find(name)->dtype);
      const CompareTensor te = *e.value().find(name);
      const CompareTensor ta = *a.value().find(name);
      if (te.dtype != ta.dtype) {
        t.mismatch = "dtype " + std::string(dtype_name(te.dtype)) + " in EXPECTED, " + std::string(dtype_name(ta.dtype)) +
                     " in ACTUAL";
      } else if (te.shape != ta.shape) {
        t.mismatch = "shape " + shape_text(te.shape) + " in EXPECTED, " + shape_text(ta.shape) + " in ACTUAL";
      } else {
        // A tensor that cannot be read (over the read bounds, outside the
        // file) is listed as not compared, with the reason, and the rest are
        // still compared; the exit status is then 2.
        auto eb = e.value().bytes(name);
        auto ab = eb ? a.value().bytes(name) : Result<std::vector<std::uint8_t>, std::string>(std::vector<std::uint8_t>{});
        if (!eb || !ab) {
          const std::string why = (eb ? ab : eb).error();
          t.mismatch = "not compared: " + why;
          if (unread.empty()) unread = why;
        } else {
          t = compare_tensor(name, te.dtype, te.shape, eb.value(), ab.value(), tolerance);
        }
      }
    }
    if (!t.mismatch.empty()) t.within = false;
    c.within = c.within && t.within;
    c.tensors.push_back(std::move(t));
  }
  std::string report = json ? render_comparison_json(c, tolerance) : render_comparison(c, tolerance);
  if (!unread.empty()) return {2, std::move(report), "safespec: " + unread + "\n"};
  return {c.within ? 0 : 1, std::move(report), ""};
}

std::string shape_text(std::span<const std::uint64_t> shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

std::string number_text(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

}  // namespace safespec
