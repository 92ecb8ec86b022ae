// Which consumer acts on which rule, where in its own order, and with which
// message: the consumer matrix, one row per upstream message. Each row's text
// is verbatim as the upstream source formats it (comfy-quant-markers.md
// writes {x} for str(x) and {x!r} for repr(x)); fill() substitutes rendered
// values for the placeholders. A check names a row and the layer or file
// index it is at; the row decides the consumer, the exception, the text and
// the place in that consumer's order (spec/quant/order.hpp).
//
// Not rows: verdicts whose text is not a template of ours, i.e. Python's own
// exception text (int() of a marker value, a JSON decode error), the
// reference reader's message for a container rule (spec/verdicts.cpp), and
// MisLoads verdicts, which have no message.
//
// `safespec rules --json` prints the matrix; props/unit_consumer_matrix_test.cpp
// holds it to what the checks emit over the conformance suite.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string_view>

#include "spec/finding.hpp"
#include "spec/quant/message.hpp"
#include "spec/rule_catalogue.hpp"

namespace safespec::quant {

// The order.hpp positions a row can sit at. Computed: the check passes the
// position (it depends on more than an index).
enum class Site : std::uint8_t {
  SgContainer, SgQmeta, SgQmetaLayer, SgTensorMarker, SgMxfp8Global, SgMissingMarkers, SgLayer,
  SgResolution, SgConfig, SgMethod, CuContainer, CuConvert, CuLayer, KtContainer, KtParams, KtOperands, Computed
};
std::string_view site_name(Site s);  // "sg_layer", as order.hpp names it

enum class Msg : std::uint16_t {
  None,  // a verdict that is not a row
  SharedSgMissingTensors,
  LayerCuMissingWeight,
  LayerCuUnknownFormat,
  LayerCuKeyError,
  LayerCuUnhashable,
  MarkerSgQmetaJson,
  MarkerSgQmetaObject,
  MarkerSgQmetaLayers,
  MarkerSgQmetaLayer,
  MarkerSgConflict,
  MarkerSgMarkerJson,
  MarkerSgMarkerObject,
  MarkerSgMxfp8,
  MarkerSgMissing,
  MarkerCuNoLayers,
  MarkerCuAttribute,
  MarkerCuAttributeLayer,
  ResolutionSgUnsupported,
  ResolutionSgW4a8Companion,
  ResolutionSgNvfp4Companion,
  KindsSgLinearMarker,
  KindsSgEmbeddingMarker,
  MmapCuMmapKeyError,
  Fp8KtNoBackend,
  Nvfp4SgDtypes,
  Nvfp4SgGlobalScale,
  Nvfp4SgWeightRank,
  Nvfp4SgShapes,
  Nvfp4SgPreQuantScale,
  Nvfp4SgFullPrecision,
  Nvfp4CuMissingScales,
  Nvfp4CuMisLoads,
  Nvfp4KtMisLoads,
  Mxfp8CuMissingScale,
  Mxfp8CuMisLoads,
  Mxfp8KtMisLoads,
  Int8SgTensorwise2d,
  Int8SgDtypes,
  Int8SgShapes,
  Int8SgConvrot,
  Int8SgGroupsize,
  Int8SgInputSize,
  Int8SgConvRotConvrot,
  Int8SgConvRotGroupsize,
  Int8SgConvRotInputSize,
  Int8SgConvRotNoKernel,
  Int8CuMissingScale,
  Int8KtScale,
  Int8KtConvrotDivide,
  Int8KtModuloZero,
  Int8KtHadamard,
  W4a4SgDtypes,
  W4a4SgShapes,
  W4a4SgGroupsize,
  W4a4SgInputSize,
  W4a4SgLinearDtype,
  W4a4CuMissingScale,
  W4a4CuWeightCast,
  W4a4KtLinearDtype,
  W4a4KtInputK,
  W4a4KtHadamard,
  W4a4CuParamsLinearDtype,
  W4a8SgGroupSize,
  W4a8SgDtypes,
  W4a8SgChannelDtype,
  W4a8SgWeightRank,
  W4a8SgShapes,
  W4a8SgCodebook,
  W4a8SgCorrection,
  W4a8SgConvrot,
  W4a8SgInputSize,
  W4a8SgZeroDivision,
  W4a8CuMissingSRel,
  W4a8CuCorrectionDropped,
  W4a8CuWeightCast,
  W4a8KtOrigShape,
  W4a8KtKRule,
  W4a8KtZeroDivision,
  W4a8KtScale,
  W4a8KtChannel,
  W4a8KtCodebook,
  W4a8KtHadamard,
  W4a8KtCudaGroup,
  W4a8KtCudaK,
  W4a8CuParamsChannel,
  W4a8CuParamsOrigShape,
  W4a8CuParamsScale,
  W4a8CuParamsCodebook,
  W4a8CuParamsZeroDivision,
  W4a8CuParamsKRule,
  AwqCuMissingScales
};

struct MessageRow {
  Msg id;
  std::string_view name;
  Site site;
  MessageTemplate t;
  std::uint32_t step;                   // within the site (order.hpp), for the sites with steps
  std::initializer_list<RuleId> rules;  // the rules whose findings carry it
};

std::span<const MessageRow> consumer_matrix();
const MessageRow& message_row(Msg m);

// The indices a row's site takes: a layer's, a marker's or a file's index,
// and for SgQmetaLayer and SgTensorMarker the entry within the file.
struct At {
  std::size_t index = 0;
  std::size_t second = 0;
};
CheckOrder order_at(Site s, At at, std::uint32_t step);

// The row's verdict at `at`, its placeholders filled from `args`.
Verdict verdict(Msg m, At at, std::initializer_list<Arg> args);
// For a Computed row: the check gives the position.
Verdict verdict(Msg m, CheckOrder order, std::initializer_list<Arg> args);

}  // namespace safespec::quant
