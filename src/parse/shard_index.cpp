#include "spec/verdicts.hpp"
#include "src/parse/shard_index.hpp"

#include <simdjson.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <deque>
#include <memory>
#include <new>
#include <optional>

#include "spec/limits.hpp"
#include "src/io/byte_file.hpp"
#include "src/commands/check_files.hpp"
#include "src/io/header_memory.hpp"
#include "src/parse/index_entries.hpp"
#include "src/io/parallel.hpp"
#include "src/io/pieced_read.hpp"
#include "src/parse/plain_index.hpp"
#include "src/parse/shard_feed.hpp"

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

// The plain reader first (src/parse/plain_index.hpp), simdjson's DOM for any text
// it does not decide, of the padded text `padded()` gives (made only then).
// `sink` hears of the shards the plain reader meets (the DOM's are not).
template <class Padded>
Result<ShardIndex> parse_index_text(std::string_view text, const Padded& padded, ShardSink* sink = nullptr) {
  if (auto plain = read_plain_index(text, sink)) return std::move(*plain);
  return parse_dom_index(padded());
}

// An index file opened, its size checked, and `text` made to hold it: room
// for the text, then simdjson's padding (zeroed, as padded_string leaves it).
// The text is read straight into that buffer, which the parsers read: no
// second copy of a 4 MB index (a 1,000-shard checkpoint's) to fault in, and
// that buffer in huge pages from 2 MiB (src/io/header_memory.hpp): a 1,000-shard
// index read by `check` faulted 1,090 times less.
struct OpenIndex {
  ByteFile file;
  std::size_t size;
};
Result<OpenIndex, IndexFailure> open_index_text(const std::string& path, std::optional<HeaderMemory>& text) {
  auto file = ByteFile::open(path);
  if (!file) return IndexFailure{file.error(), std::nullopt};
  // A URL's size is the server's word: it is checked before any allocation.
  if (file.value().size() > kMaxIndexBytes)
    return IndexFailure{std::nullopt, index_json_error(Place::index(), "expected an index of at most 256 MiB, found " +
                                                                      std::to_string(file.value().size()) + " bytes")};
  const auto size = static_cast<std::size_t>(file.value().size());
  text.emplace(size + simdjson::SIMDJSON_PADDING);
  std::memset(text->data() + size, 0, simdjson::SIMDJSON_PADDING);
  return OpenIndex{std::move(file).value(), size};
}

// The same, and the text read. Returns the text's length.
Result<std::size_t, IndexFailure> read_index_text(const std::string& path, std::optional<HeaderMemory>& text) {
  auto opened = open_index_text(path, text);
  if (!opened) return std::move(opened).error();
  const std::size_t size = opened.value().size;
  if (auto r = opened.value().file.read_at(0, std::span(text->data(), size)); !r) return IndexFailure{r.error(), std::nullopt};
  return size;
}

Result<ShardIndex> parse_read_text(const HeaderMemory& text, std::size_t size, ShardSink* sink) {
  const std::string_view read(reinterpret_cast<const char*>(text.data()), size);
  return parse_index_text(
      read, [&] { return simdjson::padded_string_view(read.data(), size, size + simdjson::SIMDJSON_PADDING); }, sink);
}

// The shards found and not removed, in the order of their names (the order
// of the reports).
std::vector<ShardFeed::Shard*> by_name(std::deque<ShardFeed::Shard>& found) {
  std::vector<ShardFeed::Shard*> order;
  order.reserve(found.size());
  for (ShardFeed::Shard& shard : found)
    if (shard.name) order.push_back(&shard);
  std::sort(order.begin(), order.end(), [](const auto* a, const auto* b) { return *a->name < *b->name; });
  return order;
}

// The folder the index is in, as a prefix of its shards' paths.
std::string folder_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash + 1);
}

}  // namespace

Result<ShardIndex> parse_shard_index_dom(std::string_view text) {
  return parse_dom_index(simdjson::padded_string(text));
}

Result<ShardIndex> parse_shard_index(std::string_view text) {
  return parse_index_text(text, [&] { return simdjson::padded_string(text); });
}

Result<IndexFile, IndexFailure> read_index_file(const std::string& path) {
  std::optional<HeaderMemory> text;
  auto size = read_index_text(path, text);
  if (!size) return std::move(size).error();
  auto index = parse_read_text(*text, size.value(), nullptr);
  if (!index) return IndexFailure{std::nullopt, std::move(index).error()};
  IndexFile out{std::move(index).value(), {}, {}};
  out.shards = out.index.shards();
  std::sort(out.shards.begin(), out.shards.end());
  const std::string dir = folder_of(path);
  out.shard_paths.reserve(out.shards.size());
  for (const std::string& name : out.shards) out.shard_paths.push_back(dir + name);
  return out;
}

std::vector<FileReport> check_shard_index(const std::string& path, Profile profile, HeaderParser& parser,
                                          std::vector<std::string>* missing, CheckJobs jobs,
                                          std::size_t in_place_bytes) {
  std::vector<FileReport> reports;
  reports.emplace_back().path = path;
  // Each consumer's verdict on an index no loader can use, worked out while
  // its text is still held.
  std::optional<ByConsumer<std::vector<Outcome>>> unusable;
  const auto refused = [&](const IndexFailure& why) {
    FileReport& r = reports[0];
    if (why.io) {
      r.io_error = why.io->message;
      return reports;
    }
    r.findings.push_back(to_finding(*why.finding));
    // An index no loader can use still gets each consumer's verdict, or an
    // explicit unknown: never no verdict at all.
    r.versions = unusable ? std::move(*unusable) : unusable_index_outcomes(std::nullopt);
    for (Consumer c : kConsumers) r.consumers[c] = r.versions[c][r.chosen[c]];
    r.judged = true;
    return reports;
  };
  std::optional<HeaderMemory> text;
  auto opened = open_index_text(path, text);
  if (!opened) return refused(opened.error());
  const std::size_t size = opened.value().size;
  // A local index is read by every worker at once, the reader waiting for
  // the whole text (src/io/pieced_read.hpp); a URL's in one request.
  PiecedRead pieces(opened.value().file, text->data(), size);
  std::optional<IoError> unread;
  const std::string dir = folder_of(path);
  // The shards are read while the index is (src/parse/shard_feed.hpp): each found
  // is taken by a free worker, the reader's own thread too once its reading
  // is done. Once the index is whole (`sealed`), a shard read after is
  // located in the index on its thread, where its model is in cache, and its
  // report written straight into its place in `reports` (`in_place`): a
  // report is 1.5 KB, and each one held on the heap and moved again after
  // was 4-9% of `check` on 1,000 shards. Up to in_place_bytes of reports:
  // past that only the readable shards' reports are kept, on the heap, so an
  // index naming 100,000 missing shards costs little more than their names
  // (the adversarial corpus's case). Shards read before are dealt with after.
  ShardFeed feed;
  std::optional<Result<ShardIndex>> parsed;
  std::atomic<const ShardIndex*> sealed{nullptr};
  bool in_place = false;  // written before `sealed`, read after it
  const auto locate = [](ShardState& state, const ShardIndex& index) {
    state.located = locate_tensors(index, *state.model);
    if (index.total_size) state.bytes = shard_bytes(*state.model);
  };
  const auto check_one = [&](ShardFeed::Shard& shard, HeaderParser& p) {
    FileReport r = check_safetensors(dir + *shard.name, profile, p);
    ShardState& state = *shard.state;
    if (r.io_error) {  // the index's finding; the index itself was readable
      state.problem = std::move(*r.io_error);
      return;
    }
    // The model is lent to the index rules and handed back after, not
    // copied: 64,000 tensors' names and shapes for a 1,000-shard checkpoint.
    state.model = std::move(r.model);
    r.model.reset();
    const ShardIndex* index = sealed.load(std::memory_order_acquire);
    if (!state.model) state.problem = "its header does not parse (see its report)";
    else if (index) locate(state, *index);
    if (index && in_place) {
      reports[1 + shard.place] = std::move(r);
      shard.placed = true;
    } else {
      shard.report = std::make_unique<FileReport>(std::move(r));
    }
  };
  // The index is whole: each shard's place in name order, and room for the
  // reports, when the reader found exactly the index's shards (the DOM, read
  // after the plain reader gave up, may name others: as many, but not all the
  // same, and a shard added late would have no place).
  const auto make_places = [&](const ShardIndex& index) {
    const std::size_t n = feed.shards().size();
    if (n != index.shards().size() || n > in_place_bytes / sizeof(FileReport)) return;
    for (const ShardFeed::Shard& shard : feed.shards())
      if (index.find_shard(*shard.name) == ShardIndex::npos) return;
    const std::vector<ShardFeed::Shard*> order = by_name(feed.shards());
    for (std::size_t i = 0; i < n; ++i) order[i]->place = i;
    reports.resize(1 + n);
    in_place = true;
  };
  const auto take_shards = [&](HeaderParser& p) {
    try {
      while (ShardFeed::Shard* shard = feed.take()) check_one(*shard, p);
    } catch (...) {
      feed.drop();  // the others stop after their current shard
      throw;
    }
  };
  // A URL's shards are URLs: read kHttpParallelRequests at once, each over
  // a connection of its own (for_each_file). The first worker to start reads the index, so a worker that waits for
  // shards always waits on a reader that has begun, however the items fall.
  std::atomic<bool> reading{false};
  for_each_worker(is_url(path) ? CheckJobs(kHttpParallelRequests) : jobs, parser, [&](std::size_t, HeaderParser& p) {
    if (!reading.exchange(true)) {
      try {
        auto read = pieces.finish();
        if (!read) {
          unread = read.error();
          feed.drop();
          return;
        }
        parsed.emplace(parse_read_text(*text, size, &feed));
        if (!parsed->ok())
          unusable.emplace(unusable_index_outcomes(std::string_view(reinterpret_cast<const char*>(text->data()), size)));
        text.reset();  // the index holds its own names: freed here, not after the last shard
      } catch (...) {
        feed.drop();
        throw;
      }
      if (parsed->ok()) {
        make_places(parsed->value());  // the reader adds no shard any more
        sealed.store(&parsed->value(), std::memory_order_release);
        feed.close();
      } else {
        feed.drop();  // the shards read are of no index: dropped below
      }
    } else {
      pieces.help();  // the reader waits for every piece before parsing
    }
    take_shards(p);
  });
  text.reset();  // unread, or a worker failed
  if (unread) return refused(IndexFailure{std::move(*unread), std::nullopt});
  if (!*parsed) return refused(IndexFailure{std::nullopt, std::move(*parsed).error()});
  const ShardIndex& index = parsed->value();
  // The index's shards are the ones found, unless the DOM read it (after the
  // plain reader found some and gave up): then its list decides.
  std::vector<ShardFeed::Shard*> late;
  for (ShardFeed::Shard& shard : feed.shards())
    if (index.find_shard(*shard.name) == ShardIndex::npos) feed.remove(shard);
  if (feed.contents().size() != index.shards().size())
    for (const std::string& name : index.shards())
      if (!feed.has(name)) late.push_back(&feed.add(name));
  std::vector<std::string> late_paths;
  for (const ShardFeed::Shard* shard : late) late_paths.push_back(dir + *shard->name);
  for_each_file(late_paths, jobs, parser, [&](std::size_t i, HeaderParser& p) { check_one(*late[i], p); });
  // Shards read before the index was whole are located now, on the threads
  // (check_index would locate them itself, on this one: ShardState).
  std::vector<ShardState*> unlocated;
  for (ShardFeed::Shard& shard : feed.shards())
    if (shard.state && shard.state->model && shard.state->located.size() != shard.state->model->header.tensors.size())
      unlocated.push_back(shard.state);
  parallel_for(unlocated.size(), is_url(path) ? 1u : jobs.count(), [&](std::size_t i, unsigned) { locate(*unlocated[i], index); });
  reports[0].findings = check_index(index, feed.contents());
  if (auto u = index_total_size_unchecked(index, feed.contents())) reports[0].unchecked.push_back(std::move(*u));
  // Reports in the order of the shards' names (in place: the order of their
  // places), each shard's model back in it.
  const std::vector<ShardFeed::Shard*> order = by_name(feed.shards());
  if (!in_place)
    reports.reserve(1 + static_cast<std::size_t>(std::count_if(order.begin(), order.end(), [](const auto* shard) {
                      return shard->report != nullptr;
                    })));
  std::size_t kept = 1;  // in place: where the next readable shard's report goes
  for (ShardFeed::Shard* shard : order) {
    if (!shard->report && !shard->placed) {
      if (missing && is_not_found(IoError{shard->state->problem})) missing->push_back(dir + *shard->name);
      continue;
    }
    FileReport* r = nullptr;
    if (!in_place) {
      reports.push_back(std::move(*shard->report));
      r = &reports.back();
    } else {
      r = &reports[kept++];
      if (shard->report) *r = std::move(*shard->report);  // read before the index was whole
      else if (r != &reports[1 + shard->place]) *r = std::move(reports[1 + shard->place]);
    }
    shard->report.reset();
    r->model = std::move(shard->state->model);
  }
  if (in_place) reports.resize(kept);
  return reports;
}

}  // namespace safespec
