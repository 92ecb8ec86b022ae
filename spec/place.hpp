// Where a finding or an error is: a typed value, kept as data (kind, the name
// as the file spells it after JSON decoding, a byte offset) and rendered only
// at output, so a consumer's message is built from the name itself and never
// parsed back out of readable text.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace safespec {

enum class PlaceKind : unsigned char {
  None,         // no place (a placeholder error that is never shown)
  File,         // the file (or checkpoint) as a whole, for what has no narrower place
  Header,       // the header as a whole
  Byte,         // a byte of the file, counted from its first byte
  Tensor,       // a tensor entry, by name
  TensorField,  // a field of a tensor entry other than the three, or a key or item inside its value (path)
  Metadata,     // the __metadata__ entry
  MetadataKey,  // one key of __metadata__, or a key or item inside its JSON value (path)
  Layer,        // a quantized layer, by its prefix
  Checkpoint,   // a checkpoint as a whole: by its name (its index, shard series or file), or by its files (path)
  Index,        // a shard index file as a whole
  WeightMap,    // the weight_map of an index
  IndexEntry,   // one tensor's entry in weight_map
  IndexTotalSize,  // metadata.total_size of an index
  Shard,        // a shard file an index names
  Argument,     // an input of a numerics function ("x", "weight_scale"), not a place in a file
};

// JSON's spelling of a kind: "tensor_field", "metadata_key", ...
std::string_view place_kind_name(PlaceKind k);

// One step below a tensor's unknown field: an object key, or an array index.
using PathStep = std::variant<std::string, std::uint64_t>;

struct Place {
  PlaceKind kind = PlaceKind::None;
  std::string name;             // tensor, layer, metadata key, shard, checkpoint or argument, as spelled
  std::string field;            // TensorField: the unknown field
  std::vector<PathStep> path;   // TensorField, MetadataKey: the keys and items below it, outermost first;
                                // Checkpoint without a name: its files
  std::uint64_t byte = 0;       // Byte: the offset

  static Place file() { return {PlaceKind::File, {}, {}, {}, 0}; }
  static Place header() { return {PlaceKind::Header, {}, {}, {}, 0}; }
  static Place at_byte(std::uint64_t offset) { return {PlaceKind::Byte, {}, {}, {}, offset}; }
  static Place tensor(std::string_view n) { return {PlaceKind::Tensor, std::string(n), {}, {}, 0}; }
  static Place tensor_field(std::string_view tensor, std::string_view f) {
    return {PlaceKind::TensorField, std::string(tensor), std::string(f), {}, 0};
  }
  static Place metadata() { return {PlaceKind::Metadata, {}, {}, {}, 0}; }
  static Place metadata_key(std::string_view key) { return {PlaceKind::MetadataKey, std::string(key), {}, {}, 0}; }
  static Place layer(std::string_view prefix) { return {PlaceKind::Layer, std::string(prefix), {}, {}, 0}; }
  // `name`: the checkpoint's index, its shard series ("dir/model-*-of-00003.safetensors") or
  // its one file, unescaped; empty for "this checkpoint".
  static Place checkpoint(std::string_view name) { return {PlaceKind::Checkpoint, std::string(name), {}, {}, 0}; }
  // A checkpoint that is the files given together, and has no other name.
  static Place checkpoint_of(const std::vector<std::string>& files) {
    return {PlaceKind::Checkpoint, {}, {}, std::vector<PathStep>(files.begin(), files.end()), 0};
  }
  static Place index() { return {PlaceKind::Index, {}, {}, {}, 0}; }
  static Place weight_map() { return {PlaceKind::WeightMap, {}, {}, {}, 0}; }
  static Place index_entry(std::string_view tensor) { return {PlaceKind::IndexEntry, std::string(tensor), {}, {}, 0}; }
  static Place index_total_size() { return {PlaceKind::IndexTotalSize, {}, {}, {}, 0}; }
  static Place shard(std::string_view file) { return {PlaceKind::Shard, std::string(file), {}, {}, 0}; }
  static Place argument(std::string_view n) { return {PlaceKind::Argument, std::string(n), {}, {}, 0}; }

  // This place, one key or item further down (TensorField, MetadataKey).
  Place below(PathStep step) const {
    Place p = *this;
    p.path.push_back(std::move(step));
    return p;
  }

  bool empty() const { return kind == PlaceKind::None; }
  // The one readable spelling, names quoted with quote_name: "tensor 'a'",
  // "byte 12", "__metadata__['k']", "tensor 'a' field 'x' key 'k'[2]".
  std::string text() const;

  friend bool operator==(const Place&, const Place&) = default;
};

}  // namespace safespec
