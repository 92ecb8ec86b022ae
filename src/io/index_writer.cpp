#include "src/io/index_writer.hpp"

#include "src/report/json_escape.hpp"

namespace safespec {

std::string canonical_index_json(const ShardIndex& index) {
  std::string out = "{";
  if (index.total_size) out += "\"metadata\":{\"total_size\":" + std::to_string(*index.total_size) + "},";
  out += "\"weight_map\":{";
  for (std::size_t i = 0; i < index.size(); ++i) {
    if (i) out += ',';
    append_json_string(out, index.tensor(i));
    out += ':';
    append_json_string(out, index.shard(i));
  }
  out += "}}";
  return out;
}

}  // namespace safespec
