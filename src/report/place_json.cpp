#include "src/report/place_json.hpp"

#include "src/report/json_escape.hpp"

namespace safespec {

bool place_has_name(const Place& p) {
  switch (p.kind) {
    case PlaceKind::Tensor:
    case PlaceKind::TensorField:
    case PlaceKind::MetadataKey:
    case PlaceKind::Layer:
    case PlaceKind::IndexEntry:
    case PlaceKind::Shard:
    case PlaceKind::Argument:
      return true;
    case PlaceKind::Checkpoint:
      return !p.name.empty();
    default:
      return false;
  }
}

std::string place_json(const Place& p) {
  std::string out = "{\"kind\":";
  append_json_string(out, place_kind_name(p.kind));
  out += ",\"name\":";
  if (place_has_name(p))
    append_json_string(out, p.name);
  else
    out += "null";
  out += ",\"field\":";
  if (p.kind == PlaceKind::TensorField)
    append_json_string(out, p.field);
  else
    out += "null";
  out += ",\"path\":[";
  for (std::size_t i = 0; i < p.path.size(); ++i) {
    if (i) out += ',';
    if (const auto* key = std::get_if<std::string>(&p.path[i]))
      append_json_string(out, *key);
    else
      out += std::to_string(std::get<std::uint64_t>(p.path[i]));
  }
  out += "],\"byte\":";
  out += p.kind == PlaceKind::Byte ? std::to_string(p.byte) : std::string("null");
  return out + "}";
}

}  // namespace safespec
