// The plain reader of model.safetensors.index.json: the text as exporters
// write it, read in one pass straight into the ShardIndex, without simdjson's
// DOM of the whole file (its tape and a copy of every string: for a
// 1,000-shard checkpoint's 4 MB index, megabytes to fault in before the
// first shard can be read).
#pragma once

#include <optional>
#include <string_view>

#include "spec/index_rules.hpp"
#include "spec/result.hpp"
#include "src/parse/index_entries.hpp"

namespace safespec {

// What parse_shard_index_dom gives for `text`, or nullopt when the text is
// not plain and the DOM must decide. Plain: one top-level object holding
// "weight_map" (an object of string values) and optionally "metadata" (an
// object of non-negative integers and strings), each once and nothing else;
// no escape in a tensor name, a shard name or a metadata key; only JSON's
// whitespace around the tokens and nothing after the object. A plain text
// is validated whole (strings UTF-8 and without control characters) before
// its entries are judged, as the DOM parses the whole document first.
// `sink`, when given, hears of each shard as the reader meets it (src/parse/index_entries.hpp).
std::optional<Result<ShardIndex>> read_plain_index(std::string_view text, ShardSink* sink = nullptr);

}  // namespace safespec
