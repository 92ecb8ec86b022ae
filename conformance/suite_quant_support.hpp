// Internal to the suite's quantized parts (suite_quant.cpp, suite_data.cpp):
// generated checkpoints made into one file with valid tensor values.
#pragma once

#include <optional>
#include <string>

#include "conformance/suite_parts.hpp"
#include "gen/quant_layers.hpp"

namespace safespec::conformance::detail {

// Every layer, extra tensor and metadata entry moved into file 0: the suite
// checks one file per case (a shard index is its own kind of case).
void one_file(gen::quant::QCheckpoint& c);

// Values every data rule accepts for tensors the generators left empty
// (zeros): scales 1.0, W4A8 s_rel 1.0, an increasing codebook; block scales
// and codes stay 0, which is valid (quant-numerics.md, data_rules.cpp).
void fill_valid_data(gen::quant::QCheckpoint& c);

void set_site(gen::quant::QCheckpoint& c, gen::quant::Site site);

// The file's bytes, or nullopt when the writer refuses.
std::optional<Bytes> file_bytes(const gen::quant::QCheckpoint& c);

// The tensor `suffix` of the first layer of format f, or nullptr.
gen::quant::QTensor* layer_tensor(gen::quant::QCheckpoint& c, gen::quant::Format f, std::string_view suffix);

// A small one-file valid checkpoint of exactly these formats (a row of S11's
// table), drawn with keys from `part`/`item`, with valid values; nullopt when
// no draw had no findings.
std::optional<gen::quant::QCheckpoint> small_valid(const std::vector<gen::quant::Format>& formats, std::string_view part,
                                                   std::uint64_t item);

std::string site_name(gen::quant::Site s);

}  // namespace safespec::conformance::detail
