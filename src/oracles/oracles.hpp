// Postconditions the fuzz targets and properties check. Each returns a
// description of the violated law, or nullopt when it holds. They live here so
// fuzzers, the replay tests and the properties share one definition.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "spec/model.hpp"
#include "spec/quant/analyze.hpp"
#include "src/commands/check.hpp"
#include "src/parse/header_parser.hpp"

namespace safespec {

// A header reduced to what survives canonical writing: tensors in W1 order,
// metadata sorted, null metadata as absent, no duplicate records, no leading
// whitespace, no unknown fields.
Header normalized(const Header& h);

// The fast parser and the reference reader give the same Model or the same
// Error (rule, where and message) for these bytes; and a file strict finds
// clean is one the emulated reference reader (spec/reference/) accepts.
std::optional<std::string> parsers_disagree(std::span<const std::uint8_t> file, HeaderParser& parser);

// If the bytes parse: the canonical header text of the model parses back to
// the same normalized header. If the reference reader accepts the whole file:
// serializing its tensors and metadata gives a file that is accepted, holds
// the same tensors and bytes, and serializes to itself again.
std::optional<std::string> roundtrip_fails(std::span<const std::uint8_t> file, HeaderParser& parser);

// ---- Quantized layers (comfy-quant-markers.md) ----

// What every analysis of a checkpoint must satisfy, whatever its markers say:
// only CQ-/NUM- findings, each in a file of the checkpoint, with a message
// and at most one Verdict per consumer; every rejecting Verdict names its
// exception and has a message; sglang_config is set exactly when no finding
// carries an sglang rejection. Exceptions escaping analyze are caught and
// reported. The analysis runs twice and must give the same result.
std::optional<std::string> analysis_breaks_laws(std::span<const quant::CheckpointFile> files);

// The marker fuzzer's oracle: `bytes` as (a) the data of a P.comfy_quant
// marker tensor, (b) when UTF-8, the whole __metadata__
// "_quantization_metadata" string, and (c) when UTF-8, both a layer entry of
// that metadata and the marker tensor of the same layer, each in a small
// checkpoint whose weight and scales have the layout of the format the bytes
// declare (fp8 when they declare none). Every analysis satisfies
// analysis_breaks_laws.
std::optional<std::string> marker_analysis_fails(std::span<const std::uint8_t> bytes);

// The checkpoint fuzzer's oracle: a whole .safetensors file through
// check_memory under every profile. Laws: no exception; one judged report per
// profile, with the same consumer outcomes under every profile and the same
// result twice; a consumer refuses the file exactly when some strict finding
// carries its rejection, and its Outcome is that rejection's message; under a
// consumer profile, ok() equals that consumer's Outcome.loads, the findings
// are exactly the strict ones carrying its Verdict (same rule and place), an
// error exactly when it rejects; under safetensors, a subset of the strict
// findings; every finding some consumer rejects is an error under strict.
std::optional<std::string> profiles_disagree(std::span<const std::uint8_t> file, HeaderParser& parser);

// A report's comparable content (findings, consumer outcomes, io_error) as
// text, for determinism checks and failure messages.
std::string describe_report(const FileReport& r);

}  // namespace safespec
