#include "spec/place.hpp"

#include <array>

#include "spec/quote.hpp"

namespace safespec {

namespace {

struct KindRow {
  PlaceKind kind;
  std::string_view json;    // place_kind_name
  std::string_view prefix;  // text before the quoted name ("" when the name is shown as is)
};

constexpr std::array<KindRow, 16> kKinds{{
    {PlaceKind::None, "none", ""},
    {PlaceKind::File, "file", "file"},
    {PlaceKind::Header, "header", "header"},
    {PlaceKind::Byte, "byte", "byte "},
    {PlaceKind::Tensor, "tensor", "tensor "},
    {PlaceKind::TensorField, "tensor_field", "tensor "},
    {PlaceKind::Metadata, "metadata", "__metadata__"},
    {PlaceKind::MetadataKey, "metadata_key", "__metadata__["},
    {PlaceKind::Layer, "layer", "layer "},
    {PlaceKind::Checkpoint, "checkpoint", "checkpoint"},
    {PlaceKind::Index, "index", "index"},
    {PlaceKind::WeightMap, "weight_map", "weight_map"},
    {PlaceKind::IndexEntry, "index_entry", "weight_map["},
    {PlaceKind::IndexTotalSize, "index_total_size", "metadata.total_size"},
    {PlaceKind::Shard, "shard", "shard "},
    {PlaceKind::Argument, "argument", ""},
}};
static_assert([] {
  for (std::size_t i = 0; i < kKinds.size(); ++i)
    if (static_cast<std::size_t>(kKinds[i].kind) != i) return false;
  return true;
}(), "kKinds is indexed by PlaceKind");

const KindRow& row(PlaceKind k) { return kKinds[static_cast<std::size_t>(k)]; }

void append_path(std::string& out, const std::vector<PathStep>& path) {
  for (const PathStep& s : path) {
    if (const auto* key = std::get_if<std::string>(&s))
      out += " key " + quote_name(*key);
    else
      out += "[" + std::to_string(std::get<std::uint64_t>(s)) + "]";
  }
}

}  // namespace

std::string_view place_kind_name(PlaceKind k) { return row(k).json; }

std::string Place::text() const {
  std::string out(row(kind).prefix);
  switch (kind) {
    case PlaceKind::None:
    case PlaceKind::File:
    case PlaceKind::Header:
    case PlaceKind::Metadata:
    case PlaceKind::Index:
    case PlaceKind::WeightMap:
    case PlaceKind::IndexTotalSize:
      break;
    case PlaceKind::Byte:
      out += std::to_string(byte);
      break;
    case PlaceKind::Tensor:
    case PlaceKind::Layer:
    case PlaceKind::Shard:
      out += quote_name(name);
      break;
    case PlaceKind::IndexEntry:
      out += quote_name(name) + "]";
      break;
    case PlaceKind::MetadataKey:
      out += quote_name(name) + "]";
      append_path(out, path);
      break;
    case PlaceKind::TensorField:
      out += quote_name(name) + " field " + quote_name(field);
      append_path(out, path);
      break;
    case PlaceKind::Checkpoint:
      if (!name.empty()) out += " " + quote_name(name);
      for (std::size_t i = 0; i < path.size(); ++i)
        if (const auto* file = std::get_if<std::string>(&path[i])) out += (i ? ", " : " of ") + quote_name(*file);
      break;
    case PlaceKind::Argument:
      out += name;
      break;
  }
  return out;
}

}  // namespace safespec
