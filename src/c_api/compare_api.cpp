// The C API's comparison of two tensors (include/safespec/numerics.h): the
// comparison `safespec compare` makes of one pair (src/commands/compare.hpp), plus
// the count of elements at each exact distance, which the command's
// buckets fold together.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "safespec/safespec.h"
#include "spec/dtype.hpp"
#include "src/c_api/handle.hpp"
#include "src/c_api/numerics_support.hpp"
#include "src/commands/compare.hpp"

// A comparison, and every string its accessors hand out.
struct safespec_comparison {
  safespec::TensorComparison t;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> distances;  // (ulps, elements), ulps ascending
  std::uint64_t infinitely_apart = 0;
};

namespace {

using safespec::Dtype;
using safespec::c_api::ApiStatus;

// The dtypes compared element by element: those whose elements are whole bytes.
constexpr std::initializer_list<Dtype> kWholeByteDtypes{
    Dtype::BOOL, Dtype::U8,  Dtype::I8,  Dtype::F8_E5M2, Dtype::F8_E4M3, Dtype::F8_E8M0, Dtype::F8_E4M3FNUZ,
    Dtype::F8_E5M2FNUZ, Dtype::I16, Dtype::U16, Dtype::F16, Dtype::BF16, Dtype::I32, Dtype::U32,
    Dtype::F32, Dtype::C64, Dtype::F64, Dtype::I64, Dtype::U64};

bool stored_as_bytes(const safespec_tensor* t) {
  return t && t->data && static_cast<unsigned>(t->dtype) < safespec::kDtypeCount && t->rank <= SAFESPEC_MAX_RANK &&
         safespec::dtype_bits(safespec::c_api::dtype_of(*t)) % 8 != 0;
}

// F4 and F6_* are compared as their stored bytes, as the command compares
// them, so only the bytes' count is held to anything.
ApiStatus check_compared_tensor(const safespec_tensor* t, const char* what) {
  if (stored_as_bytes(t)) return safespec::Unit{};
  return safespec::c_api::check_tensor(t, what, kWholeByteDtypes);
}

ApiStatus check_compared_pair(const safespec_tensor* e, const safespec_tensor* a, const safespec_tolerance* tol) {
  using safespec::c_api::invalid_argument;
  using safespec::c_api::invalid_input;
  if (tol && (!std::isfinite(tol->atol) || tol->atol < 0 || !std::isfinite(tol->rtol) || tol->rtol < 0))
    return invalid_argument("tolerance: expected atol and rtol finite, 0 or more, found atol=" +
                            safespec::number_text(tol->atol) + ", rtol=" + safespec::number_text(tol->rtol));
  if (auto s = check_compared_tensor(e, "expected"); !s) return s;
  if (auto s = check_compared_tensor(a, "actual"); !s) return s;
  if (e->dtype != a->dtype)
    return invalid_input("actual: expected dtype " + std::string(safespec_dtype_name(e->dtype)) +
                         " as expected's, found " + safespec_dtype_name(a->dtype));
  const std::vector<std::uint64_t> shape = safespec::c_api::shape_of(*e), other = safespec::c_api::shape_of(*a);
  if (shape != other)
    return invalid_input("actual: expected shape " + safespec::shape_text(shape) + " as expected's, found " +
                         safespec::shape_text(other));
  if (e->size_bytes != a->size_bytes)
    return invalid_input("actual: expected " + std::to_string(e->size_bytes) + " bytes as expected's, found " +
                         std::to_string(a->size_bytes));
  return safespec::Unit{};
}

// The elements at each distance in ulps, from the command's own distance.
void count_distances(safespec_comparison& c, Dtype d, std::span<const std::uint8_t> e,
                     std::span<const std::uint8_t> a) {
  std::map<std::uint64_t, std::uint64_t> at;
  const std::size_t item = safespec::dtype_element_bytes(d);
  if (item == 0) {  // bytes as stored: equal, or infinitely far
    if (c.t.bit_exact != 0) at[0] = c.t.bit_exact;
    c.infinitely_apart = c.t.count - c.t.bit_exact;
  }
  for (std::size_t i = 0; item != 0 && i < e.size() / item; ++i) {
    const auto eb = e.subspan(i * item, item), ab = a.subspan(i * item, item);
    if (std::equal(eb.begin(), eb.end(), ab.begin())) {
      ++at[0];
      continue;
    }
    const safespec::ElementDistance dist = safespec::element_distance(d, eb, ab);
    if (dist.ulps) ++at[*dist.ulps];
    else ++c.infinitely_apart;
  }
  c.distances.assign(at.begin(), at.end());
}

}  // namespace

extern "C" {

safespec_status safespec_compare(const safespec_tensor* expected, const safespec_tensor* actual,
                                 const safespec_tolerance* tolerance, safespec_comparison** out,
                                 safespec_error* error) {
  return safespec::c_api::numeric_call(error, [&]() -> ApiStatus {
    if (!out) return safespec::c_api::invalid_argument("out: expected a place for the comparison, found a null pointer");
    if (auto s = check_compared_pair(expected, actual, tolerance); !s) return s;
    const safespec_tolerance tol = tolerance ? *tolerance : safespec_tolerance{0, 0, 0};
    const Dtype d = safespec::c_api::dtype_of(*expected);
    const auto e = safespec::c_api::bytes_of(*expected), a = safespec::c_api::bytes_of(*actual);
    auto c = std::make_unique<safespec_comparison>();
    c->t = safespec::compare_tensor("", d, safespec::c_api::shape_of(*expected), e, a,
                                    safespec::Tolerance{tol.ulps, tol.atol, tol.rtol});
    count_distances(*c, d, e, a);
    *out = c.release();
    return safespec::Unit{};
  });
}

void safespec_comparison_free(safespec_comparison* comparison) { delete comparison; }

safespec_status safespec_comparison_get(const safespec_comparison* comparison, safespec_comparison_summary* out) {
  if (!comparison || !out) return SAFESPEC_INVALID_ARGUMENT;
  const safespec::TensorComparison& t = comparison->t;
  *out = safespec_comparison_summary{};
  out->count = t.count;
  out->bit_exact = t.bit_exact;
  out->max_ulps_infinite = !t.max_ulps;
  out->max_ulps = t.max_ulps.value_or(0);
  out->max_abs = t.max_abs;
  out->max_rel = t.max_rel;
  out->within = t.within;
  out->beyond = t.beyond;
  return SAFESPEC_OK;
}

safespec_status safespec_comparison_distance_count(const safespec_comparison* comparison, size_t* count) {
  if (!comparison || !count) return SAFESPEC_INVALID_ARGUMENT;
  *count = comparison->distances.size() + (comparison->infinitely_apart != 0);
  return SAFESPEC_OK;
}

safespec_status safespec_comparison_distance(const safespec_comparison* comparison, size_t entry, int* infinite,
                                             uint64_t* ulps, uint64_t* elements) {
  if (!comparison || !infinite || !ulps || !elements) return SAFESPEC_INVALID_ARGUMENT;
  const auto& finite = comparison->distances;
  if (entry < finite.size()) {
    *infinite = 0;
    *ulps = finite[entry].first;
    *elements = finite[entry].second;
    return SAFESPEC_OK;
  }
  if (entry > finite.size() || comparison->infinitely_apart == 0) return SAFESPEC_OUT_OF_RANGE;
  *infinite = 1;
  *ulps = 0;
  *elements = comparison->infinitely_apart;
  return SAFESPEC_OK;
}

safespec_status safespec_comparison_difference(const safespec_comparison* comparison, safespec_difference_kind which,
                                               safespec_difference* out) {
  if (!comparison || !out || (which != SAFESPEC_DIFFERENCE_FIRST && which != SAFESPEC_DIFFERENCE_WORST))
    return SAFESPEC_INVALID_ARGUMENT;
  const auto& d = which == SAFESPEC_DIFFERENCE_FIRST ? comparison->t.first : comparison->t.worst;
  *out = safespec_difference{};
  if (!d) return SAFESPEC_OK;
  out->present = 1;
  out->index = d->index;
  out->differing = which == SAFESPEC_DIFFERENCE_FIRST ? d->differing : 0;
  out->position = safespec::c_api::view(d->position);
  out->expected = safespec::c_api::view(d->expected);
  out->actual = safespec::c_api::view(d->actual);
  return SAFESPEC_OK;
}

}  // extern "C"
