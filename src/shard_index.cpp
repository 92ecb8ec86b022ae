#include "src/shard_index.hpp"

#include <simdjson.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <new>
#include <optional>

#include "spec/limits.hpp"
#include "src/byte_file.hpp"
#include "src/check_files.hpp"
#include "src/header_memory.hpp"
#include "src/index_entries.hpp"
#include "src/plain_index.hpp"

namespace safespec {

namespace {

// simdjson's DOM of the index's text, with simdjson's padding after it
// (read_index_file reads it so; parse_shard_index copies other text once).
Result<ShardIndex> parse_dom_index(simdjson::padded_string_view padded) {
  namespace dom = simdjson::dom;
  dom::parser parser;
  dom::element root;
  if (auto err = parser.parse(padded).get(root); err) {
    // Memory refused is not the index's fault: it ends the command as out of
    // memory (cli/main.cpp), as any other allocation that fails does.
    if (err == simdjson::MEMALLOC) throw std::bad_alloc();
    return index_json_error(Place::index(),
                            std::string("expected a JSON document, found: ") + simdjson::error_message(err));
  }
  dom::object top;
  if (root.get_object().get(top)) return index_json_error(Place::index(), "expected a JSON object at the top level");
  dom::element map_value;
  dom::object weight_map;
  if (top["weight_map"].get(map_value) || map_value.get_object().get(weight_map))
    return index_json_error(Place::weight_map(), "expected a weight_map object mapping tensor names to shard files");
  IndexEntries entries(weight_map.size());
  for (dom::key_value_pair kv : weight_map) {
    std::string_view shard;
    if (kv.value.get_string().get(shard)) entries.not_a_string(kv.key);
    else entries.add(kv.key, shard);
    if (entries.stopped()) break;
  }
  auto read = std::move(entries).finish();
  if (!read) return std::move(read).error();
  ShardIndex index = std::move(read).value();
  dom::element metadata;
  if (!top["metadata"].get(metadata) && metadata.is_object()) {
    dom::element total;
    if (!metadata["total_size"].get(total)) {
      std::uint64_t v = 0;
      if (total.get_uint64().get(v))
        return index_json_error(Place::index_total_size(), "expected an integer byte count");
      index.total_size = v;
    }
  }
  return index;
}

// The plain reader first (src/plain_index.hpp), simdjson's DOM for any text
// it does not decide, of the padded text `padded()` gives (made only then).
template <class Padded>
Result<ShardIndex> parse_index_text(std::string_view text, const Padded& padded) {
  if (auto plain = read_plain_index(text)) return std::move(*plain);
  return parse_dom_index(padded());
}

}  // namespace

Result<ShardIndex> parse_shard_index_dom(std::string_view text) {
  return parse_dom_index(simdjson::padded_string(text));
}

Result<ShardIndex> parse_shard_index(std::string_view text) {
  return parse_index_text(text, [&] { return simdjson::padded_string(text); });
}

Result<IndexFile, IndexFailure> read_index_file(const std::string& path) {
  auto file = ByteFile::open(path);
  if (!file) return IndexFailure{file.error(), std::nullopt};
  // A URL's size is the server's word: it is checked before any allocation.
  if (file.value().size() > kMaxIndexBytes)
    return IndexFailure{std::nullopt, index_json_error(Place::index(), "expected an index of at most 256 MiB, found " +
                                                                      std::to_string(file.value().size()) + " bytes")};
  // Read straight into the parser's padded buffer: no second copy of a
  // 4 MB index (a 1,000-shard checkpoint's) to fault in, and that buffer
  // in huge pages from 2 MiB (src/header_memory.hpp): a 1,000-shard index
  // read by `check` faulted 1,090 times less.
  const auto size = static_cast<std::size_t>(file.value().size());
  HeaderMemory text(size + simdjson::SIMDJSON_PADDING);
  if (auto r = file.value().read_at(0, std::span(text.data(), size)); !r) return IndexFailure{r.error(), std::nullopt};
  std::memset(text.data() + size, 0, simdjson::SIMDJSON_PADDING);  // as padded_string leaves it
  const std::string_view read(reinterpret_cast<const char*>(text.data()), size);
  auto index = parse_index_text(
      read, [&] { return simdjson::padded_string_view(read.data(), size, size + simdjson::SIMDJSON_PADDING); });
  if (!index) return IndexFailure{std::nullopt, std::move(index).error()};
  IndexFile out{std::move(index).value(), {}, {}};
  out.shards = out.index.shards();
  std::sort(out.shards.begin(), out.shards.end());
  const auto slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "" : path.substr(0, slash + 1);
  out.shard_paths.reserve(out.shards.size());
  for (const std::string& name : out.shards) out.shard_paths.push_back(dir + name);
  return out;
}

std::vector<FileReport> check_shard_index(const std::string& path, Profile profile, FastHeaderParser& parser,
                                          std::vector<std::string>* missing, unsigned jobs,
                                          std::size_t in_place_bytes) {
  std::vector<FileReport> reports;
  reports.push_back(FileReport{path, {}, std::nullopt, std::nullopt, {}, false, std::nullopt, {}, {}});
  auto read = read_index_file(path);
  if (!read) {
    const IndexFailure& why = read.error();
    if (why.io) reports[0].io_error = why.io->message;
    else reports[0].findings.push_back(to_finding(*why.finding));
    return reports;
  }
  const ShardIndex& index = read.value().index;
  std::vector<std::string>& shard_paths = read.value().shard_paths;
  // Every shard's entry exists before the threads start: each then writes
  // only its own ShardState (a map's values stay put), the model included.
  ShardContents contents;
  std::vector<ShardState*> states;
  for (const std::string& shard : read.value().shards) states.push_back(&contents[shard]);
  // A report is kilobytes (its per-rule counts). Up to in_place_bytes of
  // them, each shard's report is written straight into its place in
  // `reports` from its thread and unreadable shards' places are dropped
  // after: each report moved again into a fresh list was 4-9% of `check` on
  // 1,000 shards, most of it faulting in the list (issue 14). Past that only
  // readable shards' reports are kept, on the heap, so an index naming
  // 100,000 missing shards costs little more than their paths (the
  // adversarial corpus's case).
  const std::size_t n = shard_paths.size();
  const bool in_place = n <= in_place_bytes / sizeof(FileReport);
  if (in_place) reports.resize(1 + n);
  std::vector<std::unique_ptr<FileReport>> held(in_place ? 0 : n);
  std::vector<char> readable(n, 0);  // bytes, not vector<bool>: each thread writes its own
  for_each_file(shard_paths, jobs, parser, [&](std::size_t i, FastHeaderParser& p) {
    FileReport r = check_safetensors(shard_paths[i], profile, p);
    ShardState& state = *states[i];
    if (r.io_error) {  // the index's finding; the index itself was readable
      state.problem = std::move(*r.io_error);
      return;
    }
    // The model is lent to the index rules below and handed back after, not
    // copied: 64,000 tensors' names and shapes for a 1,000-shard checkpoint.
    state.model = std::move(r.model);
    r.model.reset();
    if (!state.model) state.problem = "its header does not parse (see its report)";
    else {  // here, on the shard's thread, where its model is in cache
      state.located = locate_tensors(index, *state.model);
      if (index.total_size) state.bytes = shard_bytes(*state.model);
    }
    readable[i] = 1;
    if (in_place) reports[1 + i] = std::move(r);
    else held[i] = std::make_unique<FileReport>(std::move(r));
  });
  reports[0].findings = check_index(index, contents);
  if (auto u = index_total_size_unchecked(index, contents)) reports[0].unchecked.push_back(std::move(*u));
  if (!in_place)  // room for every readable shard's report at once
    reports.reserve(1 + static_cast<std::size_t>(std::count(readable.begin(), readable.end(), 1)));
  std::size_t kept = 1;  // in place: the next place a readable shard's report goes
  for (std::size_t i = 0; i < n; ++i) {
    if (!readable[i]) {
      if (missing && is_not_found(IoError{states[i]->problem})) missing->push_back(std::move(shard_paths[i]));
      continue;
    }
    if (!in_place) {
      reports.push_back(std::move(*held[i]));
      held[i].reset();
    } else if (kept != 1 + i) {
      reports[kept] = std::move(reports[1 + i]);
    }
    FileReport& r = in_place ? reports[kept++] : reports.back();
    r.model = std::move(states[i]->model);
  }
  if (in_place) reports.resize(kept);
  return reports;
}

}  // namespace safespec
