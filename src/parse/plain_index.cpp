#include "src/parse/plain_index.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>

#include "src/parse/index_entries.hpp"
#include "src/parse/plain_text_cursor.hpp"

namespace safespec {

namespace {

// Room reserved for the entries: an exporter's entry is some 60-80 bytes
// (`"model.layers.0.mlp.up_proj.weight": "model-00001-of-00004.safetensors",`);
// shorter ones only cost the vector a growth. At most a million entries
// (24 MB) are reserved ahead, whatever the text's size; room an index with a
// large metadata and a small weight_map does not use stays address space,
// never touched.
constexpr std::size_t kEntryBytesGuess = 64;
constexpr std::size_t kMaxEntriesReserved = std::size_t{1} << 20;

class PlainIndexReader {
 public:
  PlainIndexReader(std::string_view text, ShardSink* sink) : text_(text), sink_(sink) { r_.reset(text); }

  std::optional<Result<ShardIndex>> read() {
    if (!r_.eat('{')) return std::nullopt;
    bool meta = false;
    do {
      std::string_view key;
      if (!kept_string(key) || !r_.eat(':')) return std::nullopt;
      if (key == "weight_map" && !entries_) {
        if (!weight_map()) return std::nullopt;
      } else if (key == "metadata" && !meta) {
        meta = true;
        if (!metadata()) return std::nullopt;
      } else {
        return std::nullopt;  // another key, or one of these twice: the DOM decides
      }
    } while (r_.eat(','));
    if (!r_.eat('}')) return std::nullopt;
    r_.skip_space();
    if (!r_.at_end() || !entries_) return std::nullopt;
    auto index = std::move(*entries_).finish();
    if (index) index.value().total_size = total_;
    return index;
  }

 private:
  // A string whose view stays valid: written without escapes, so the view
  // is into the text (a decoded one lives in the cursor's scratch buffer).
  bool kept_string(std::string_view& out) {
    if (!r_.string(out)) return false;
    // std::less_equal: a total order even for pointers into other buffers.
    const std::less_equal<const char*> le;
    return le(text_.data(), out.data()) && le(out.data() + out.size(), text_.data() + text_.size());
  }

  bool weight_map() {
    entries_.emplace(std::min(text_.size() / kEntryBytesGuess, kMaxEntriesReserved), sink_);
    if (!r_.eat('{')) return false;
    if (r_.eat('}')) return true;
    do {
      std::string_view tensor, shard;
      if (!kept_string(tensor) || !r_.eat(':') || !kept_string(shard)) return false;
      entries_->add(tensor, shard);  // past the first refusal, only read
    } while (r_.eat(','));
    return r_.eat('}');
  }

  bool metadata() {
    if (!r_.eat('{')) return false;
    if (r_.eat('}')) return true;
    do {
      std::string_view key;
      if (!kept_string(key) || !r_.eat(':')) return false;
      const bool total = key == "total_size";
      if (total && total_) return false;  // twice
      if (r_.peek('"')) {
        std::string_view value;
        if (total || !r_.string(value)) return false;  // a total_size string: the DOM's error
      } else {
        std::uint64_t value = 0;
        if (!r_.u64(value)) return false;
        if (total) total_ = value;
      }
    } while (r_.eat(','));
    return r_.eat('}');
  }

  std::string_view text_;
  ShardSink* sink_;
  plain::Reader r_;
  std::optional<IndexEntries> entries_;
  std::optional<std::uint64_t> total_;
};

}  // namespace

std::optional<Result<ShardIndex>> read_plain_index(std::string_view text, ShardSink* sink) {
  return PlainIndexReader(text, sink).read();
}

}  // namespace safespec
