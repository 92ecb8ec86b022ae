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

// The rows' names, in table order: the Msg enum and the ids `safespec rules
// --json` prints (msg_name) are both made from this one list.
#define SAFESPEC_CONSUMER_MESSAGES(X) \
  X(SharedSgMissingTensors) \
  X(LayerCuMissingWeight) \
  X(LayerCuUnknownFormat) \
  X(LayerCuKeyError) \
  X(LayerCuUnhashable) \
  X(MarkerSgQmetaJson) \
  X(MarkerSgQmetaObject) \
  X(MarkerSgQmetaLayers) \
  X(MarkerSgQmetaLayer) \
  X(MarkerSgConflict) \
  X(MarkerSgMarkerJson) \
  X(MarkerSgMarkerObject) \
  X(MarkerSgMxfp8) \
  X(MarkerSgMissing) \
  X(LegacySgConvrot) \
  X(LegacySgConfigType) \
  X(LegacySgMixMarkers) \
  X(LegacySgMissingScale) \
  X(LegacySgScaleMeta) \
  X(LegacySgNoWeights) \
  X(MarkerCuNoLayers) \
  X(MarkerCuAttribute) \
  X(MarkerCuAttributeLayer) \
  X(ResolutionSgUnsupported) \
  X(ResolutionSgW4a8Companion) \
  X(ResolutionSgNvfp4Companion) \
  X(KindsSgLinearMarker) \
  X(KindsSgEmbeddingMarker) \
  X(MmapCuMmapKeyError) \
  X(Fp8KtNoBackend) \
  X(Nvfp4SgDtypes) \
  X(Nvfp4SgGlobalScale) \
  X(Nvfp4SgWeightRank) \
  X(Nvfp4SgShapes) \
  X(Nvfp4SgPreQuantScale) \
  X(Nvfp4SgFullPrecision) \
  X(Nvfp4CuMissingScales) \
  X(Nvfp4CuMisLoads) \
  X(Nvfp4KtMisLoads) \
  X(Mxfp8CuMissingScale) \
  X(Mxfp8CuMisLoads) \
  X(Mxfp8KtMisLoads) \
  X(Int8SgTensorwise2d) \
  X(Int8SgDtypes) \
  X(Int8SgShapes) \
  X(Int8SgConvrot) \
  X(Int8SgGroupsize) \
  X(Int8SgInputSize) \
  X(Int8SgConvRotConvrot) \
  X(Int8SgConvRotGroupsize) \
  X(Int8SgConvRotInputSize) \
  X(Int8SgConvRotNoKernel) \
  X(Int8CuMissingScale) \
  X(Int8KtScale) \
  X(Int8KtConvrotDivide) \
  X(Int8KtModuloZero) \
  X(Int8KtHadamard) \
  X(W4a4SgDtypes) \
  X(W4a4SgShapes) \
  X(W4a4SgGroupsize) \
  X(W4a4SgInputSize) \
  X(W4a4SgLinearDtype) \
  X(W4a4CuMissingScale) \
  X(W4a4CuWeightCast) \
  X(W4a4KtLinearDtype) \
  X(W4a4KtInputK) \
  X(W4a4KtHadamard) \
  X(W4a4CuParamsLinearDtype) \
  X(W4a8SgGroupSize) \
  X(W4a8SgDtypes) \
  X(W4a8SgChannelDtype) \
  X(W4a8SgWeightRank) \
  X(W4a8SgShapes) \
  X(W4a8SgCodebook) \
  X(W4a8SgCorrection) \
  X(W4a8SgConvrot) \
  X(W4a8SgInputSize) \
  X(W4a8SgZeroDivision) \
  X(W4a8CuMissingSRel) \
  X(W4a8CuCorrectionDropped) \
  X(W4a8CuWeightCast) \
  X(W4a8KtOrigShape) \
  X(W4a8KtKRule) \
  X(W4a8KtZeroDivision) \
  X(W4a8KtScale) \
  X(W4a8KtChannel) \
  X(W4a8KtCodebook) \
  X(W4a8KtHadamard) \
  X(W4a8KtCudaGroup) \
  X(W4a8KtCudaK) \
  X(W4a8CuParamsChannel) \
  X(W4a8CuParamsOrigShape) \
  X(W4a8CuParamsScale) \
  X(W4a8CuParamsCodebook) \
  X(W4a8CuParamsZeroDivision) \
  X(W4a8CuParamsKRule) \
  X(W6a8KtGroupSize) \
  X(W6a8KtLayout) \
  X(W6a8KtCodebook) \
  X(AwqCuMissingScales)

enum class Msg : std::uint16_t {
  None,  // a verdict that is not a row
#define SAFESPEC_MSG_ENUMERATOR(name) name,
  SAFESPEC_CONSUMER_MESSAGES(SAFESPEC_MSG_ENUMERATOR)
#undef SAFESPEC_MSG_ENUMERATOR
};
// "W4a8SgDtypes" for Msg::W4a8SgDtypes; empty for Msg::None.
std::string_view msg_name(Msg m);

struct MessageRow {
  Msg id;
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
