#include "src/index_writer.hpp"

#include "src/json_escape.hpp"

namespace safespec {

std::string canonical_index_json(const ShardIndex& index) {
  std::string out = "{";
  if (index.total_size) out += "\"metadata\":{\"total_size\":" + std::to_string(*index.total_size) + "},";
  out += "\"weight_map\":{";
  for (std::size_t i = 0; i < index.weight_map.size(); ++i) {
    if (i) out += ',';
    append_json_string(out, index.weight_map[i].first);
    out += ':';
    append_json_string(out, index.weight_map[i].second);
  }
  out += "}}";
  return out;
}

}  // namespace safespec
