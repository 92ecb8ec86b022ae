// Properties of the canonical writer (W1-W8) and of the normal form: what is
// written reads back as written, by both readers, with no findings at all.
#include <algorithm>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gen/models.hpp"
#include "gen/mutations.hpp"
#include "props/catch.hpp"
#include "spec/file_reader.hpp"
#include "spec/format_rules.hpp"
#include "spec/header_reader.hpp"
#include "spec/name_hash.hpp"
#include "spec/name_index.hpp"
#include "src/parse/load.hpp"
#include "src/oracles/oracles.hpp"
#include "src/io/writer.hpp"

namespace sg = safespec::gen;
using namespace safespec;

namespace {

std::vector<std::uint8_t> written(const sg::FileSpec& spec) {
  auto bytes = serialize(sg::views_of(spec), spec.metadata);
  if (!bytes) RC_FAIL("the writer refuses a valid spec: " + bytes.error().message);
  return std::move(bytes).value();
}

std::string finding_places(const Findings& fs) {
  std::string s;
  for (const Finding& f : fs) s += std::string(rule_name(f.rule)) + " at " + f.where.text() + "; ";
  return s;
}

// A random permutation drawn inside a property.
template <class T>
void shuffle(std::vector<T>& v) {
  for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[*rc::gen::inRange<std::size_t>(0, i)]);
}

Metadata sorted(Metadata m) {
  std::sort(m.begin(), m.end());
  return m;
}

}  // namespace

TEST_CASE("writer round trip (W1-W8)", "[prop][writer]") {
  rc::prop("both readers accept what serialize writes and give the spec back", [] {
    const sg::FileSpec spec = *sg::file_spec();
    const auto bytes = written(spec);
    HeaderParser parser;
    const Result<Model> reference = read_model_reference(bytes);
    const Result<Model> fast = read_model_fast(bytes, parser);
    if (!reference) RC_FAIL("reference reader rejects: " + std::string(rule_name(reference.error().rule)) + " " +
                            reference.error().message + "\n" + sg::escaped_bytes(bytes));
    RC_ASSERT(fast == reference);
    const Model& m = reference.value();

    // Canonical output trips no rule, not even a strict warning (W5, W8).
    const Findings fs = check_model(m, Profile::Strict);
    if (!fs.empty()) RC_FAIL("findings on written file: " + finding_places(fs));
    RC_ASSERT(m.header_length % 8 == 0);  // W5
    RC_ASSERT(m.header.leading_whitespace == 0u);
    RC_ASSERT(m.header.duplicates.empty());
    RC_ASSERT(m.header.unknown_fields.empty());

    // Same tensors: name, dtype, shape, bytes.
    RC_ASSERT(m.header.tensors.size() == spec.tensors.size());
    const std::uint64_t start = 8 + m.header_length;
    for (const sg::TensorSpec& t : spec.tensors) {
      const auto it = std::find_if(m.header.tensors.begin(), m.header.tensors.end(),
                                   [&](const TensorEntry& e) { return e.name == t.name; });
      RC_ASSERT(it != m.header.tensors.end());
      RC_ASSERT(it->dtype == t.dtype);
      RC_ASSERT(it->shape == t.shape);
      RC_ASSERT(it->end - it->begin == t.data.size());
      RC_ASSERT(std::equal(t.data.begin(), t.data.end(), bytes.begin() + static_cast<std::ptrdiff_t>(start + it->begin)));
    }
    // Same metadata (the writer sorts keys; absent stays absent).
    if (spec.metadata) {
      RC_ASSERT(m.header.metadata_state == MetadataState::Present);
      RC_ASSERT(sorted(m.header.metadata) == sorted(*spec.metadata));
      RC_ASSERT(m.header.metadata == sorted(*spec.metadata));  // written in ascending key order
    } else {
      RC_ASSERT(m.header.metadata_state == MetadataState::Absent);
    }
    // The shared postcondition agrees.
    if (auto why = roundtrip_fails(bytes, parser)) RC_FAIL(*why);
  });

  rc::prop("serialize is deterministic and ignores input order (W1)", [] {
    const sg::FileSpec spec = *sg::file_spec();
    const auto bytes = written(spec);
    RC_ASSERT(written(spec) == bytes);
    sg::FileSpec shuffled = spec;
    shuffle(shuffled.tensors);
    if (shuffled.metadata) shuffle(*shuffled.metadata);
    RC_ASSERT(written(shuffled) == bytes);
  });

  rc::prop("tensors are laid out in W1 order, contiguous, data 8-aligned (W1, W2, W5, W8)", [] {
    const sg::FileSpec spec = *sg::file_spec();
    const auto bytes = written(spec);
    HeaderParser parser;
    const Result<Model> m = read_model_fast(bytes, parser);
    RC_ASSERT(m.ok());
    const auto& ts = m.value().header.tensors;  // document order
    std::uint64_t cursor = 0;
    for (std::size_t i = 0; i < ts.size(); ++i) {
      if (i) RC_ASSERT(canonical_less(ts[i - 1].dtype, ts[i - 1].name, ts[i].dtype, ts[i].name));
      RC_ASSERT(ts[i].begin == cursor);
      cursor = ts[i].end;
      const std::uint32_t size = dtype_element_bytes(ts[i].dtype);
      if (size > 1) RC_ASSERT((8 + m.value().header_length + ts[i].begin) % size == 0);
    }
    RC_ASSERT(cursor == m.value().buffer_size());
    // The header is compact: no whitespace except the W5 padding at the end.
    const std::string_view text(reinterpret_cast<const char*>(bytes.data()) + 8, m.value().header_length);
    const std::size_t close = text.find_last_of('}');
    RC_ASSERT(text.size() - close - 1 < 8u);
    RC_ASSERT(text.find_first_not_of(' ', close + 1) == std::string_view::npos);
  });

  rc::prop("the mutation library's renderer reproduces the writer byte for byte", [] {
    const sg::FileSpec spec = *sg::file_spec();
    RC_ASSERT(sg::bytes_of(sg::plan_of(spec)) == written(spec));
  });

  rc::prop("the writer refuses duplicates, __metadata__ and wrong data sizes (W3, X3, X10)", [] {
    sg::FileSpec spec = *sg::file_spec();
    const int kind = *rc::gen::inRange(0, 4);
    RuleId expected{};
    if (kind == 0) {
      if (spec.tensors.empty()) spec.tensors.push_back(*sg::tensor_spec());
      spec.tensors.push_back(spec.tensors[*rc::gen::inRange<std::size_t>(0, spec.tensors.size())]);
      expected = RuleId::DuplicateTensor;
    } else if (kind == 1) {
      sg::TensorSpec t = *sg::tensor_spec();
      t.name = "__metadata__";
      spec.tensors.insert(spec.tensors.begin(), t);
      expected = RuleId::TensorNameReserved;
    } else if (kind == 2) {
      if (!spec.metadata) spec.metadata.emplace();
      if (spec.metadata->empty()) spec.metadata->emplace_back("k", "v");
      spec.metadata->push_back({spec.metadata->front().first, *sg::utf8_text()});
      expected = RuleId::DuplicateMetadataKey;
    } else {
      if (spec.tensors.empty()) spec.tensors.push_back(*sg::tensor_spec());
      auto& data = spec.tensors[*rc::gen::inRange<std::size_t>(0, spec.tensors.size())].data;
      if (data.empty() || *rc::gen::arbitrary<bool>())
        data.push_back(0);
      else
        data.pop_back();
      expected = RuleId::SizeMismatch;
    }
    const auto r = serialize(sg::views_of(spec), spec.metadata);
    RC_ASSERT(!r.ok());
    RC_ASSERT(r.error().rule == expected);
  });
}

TEST_CASE("normal form (canonical_header_json)", "[prop][normal-form]") {
  rc::prop("canonical text of a parsed header re-parses to the same normal form", [] {
    const sg::Plan plan = sg::plan_of(*sg::file_spec());
    const sg::Layout layout = sg::decorated(plan);  // whitespace, unknown fields, null metadata, decoys
    const auto bytes = sg::bytes_of(layout);
    HeaderParser parser;
    const Result<Model> m = read_model_fast(bytes, parser);
    if (!m) RC_FAIL("decorated file does not parse: " + m.error().message + "\n" + sg::escaped_bytes(bytes));
    const Header& h = m.value().header;
    const std::string text = canonical_header_json(h);
    const Result<Header> again = read_header_reference(text);
    if (!again) RC_FAIL("canonical text does not parse: " + again.error().message + "\n" + sg::escaped_text(text));
    RC_ASSERT(normalized(again.value()) == normalized(h));
    // Idempotent, and already normal: nothing left for normalized() to remove.
    RC_ASSERT(canonical_header_json(again.value()) == text);
    RC_ASSERT(again.value().leading_whitespace == 0u);
    RC_ASSERT(again.value().duplicates.empty());
    RC_ASSERT(normalized(again.value()) == normalized(normalized(h)));
    // The decorated file's meaning is the plan's.
    sg::Plan undecorated = plan;
    Header expected;
    expected.tensors = undecorated.tensors;
    expected.metadata_state = undecorated.metadata_state;
    expected.metadata = undecorated.metadata;
    RC_ASSERT(normalized(h) == normalized(expected));
    if (auto why = roundtrip_fails(bytes, parser)) RC_FAIL(*why);
  });

  rc::prop("normalized() is idempotent and ignores tensor order", [] {
    const sg::Plan plan = sg::plan_of(*sg::file_spec());
    Header h;
    h.tensors = plan.tensors;
    h.metadata_state = plan.metadata_state;
    h.metadata = plan.metadata;
    Header shuffled = h;
    shuffle(shuffled.tensors);
    shuffle(shuffled.metadata);
    RC_ASSERT(normalized(shuffled) == normalized(h));
    RC_ASSERT(normalized(normalized(h)) == normalized(h));
    RC_ASSERT(canonical_header_json(shuffled) == canonical_header_json(h));
  });
}

// NameIndex::for_each_repeat (spec/name_index.hpp) is the one duplicate walk
// of both header readers, check_index and the collision check of a
// checkpoint's files: it must name every repeat with its first appearance,
// in order, whatever the names and however many collide.
TEST_CASE("NameIndex reports each repeated name with its first appearance", "[prop][name-index]") {
  rc::prop("for_each_repeat agrees with a quadratic scan", [] {
    // Ten distinct names of 0 to 3 bytes, NUL among them: repeats are common.
    const auto names = *rc::gen::container<std::vector<std::string>>(rc::gen::map(
        rc::gen::inRange(0, 12), [](int v) { return std::string(static_cast<std::size_t>(v % 4), "ab\0"[v / 4]); }));
    std::vector<std::pair<std::size_t, std::size_t>> expected;
    for (std::size_t i = 0; i < names.size(); ++i)
      for (std::size_t j = 0; j < i; ++j)
        if (names[j] == names[i]) {
          expected.emplace_back(i, j);
          break;
        }
    std::vector<std::pair<std::size_t, std::size_t>> got;
    NameIndex index;
    index.for_each_repeat(names.size(), [&](std::size_t k) { return std::string_view(names[k]); },
                          [&](std::size_t i, std::size_t first) {
                            got.emplace_back(i, first);
                            return true;
                          });
    RC_ASSERT(got == expected);
    // first_duplicate compares up to four names with each other and hashes
    // more, or any number when it writes their hashes: one answer each way.
    const std::size_t first = expected.empty() ? NameIndex::npos : expected.front().first;
    NameIndex again;
    RC_ASSERT(again.first_duplicate(names.size(), [&](std::size_t k) { return std::string_view(names[k]); }) == first);
    std::vector<std::uint64_t> hashes(names.size());
    RC_ASSERT(again.first_duplicate(names.size(), [&](std::size_t k) { return std::string_view(names[k]); },
                                    hashes.data()) == first);
    if (first == NameIndex::npos)
      for (std::size_t k = 0; k < names.size(); ++k) RC_ASSERT(hashes[k] == name_hash(names[k]));
  });
}

// name_hash (spec/name_hash.cpp) loads the last bytes of a name of 8 or more
// with one load that ends at its last byte; the law: the hash depends on
// every byte of the name and on nothing around it (a dropped or shifted tail
// byte would make names that differ there collide, every time).
TEST_CASE("name_hash reads every byte of the name and no other", "[prop][name-index]") {
  rc::prop("the same name anywhere hashes alike; any changed byte changes it", [] {
    const std::string name = *rc::gen::container<std::string>(static_cast<std::size_t>(*rc::gen::inRange(0, 40)),
                                                              rc::gen::arbitrary<char>());
    const std::string before = *rc::gen::arbitrary<std::string>(), after = *rc::gen::arbitrary<std::string>();
    const std::string framed = before + name + after;
    const std::uint64_t h = name_hash(name);
    RC_ASSERT(name_hash(std::string_view(framed).substr(before.size(), name.size())) == h);
    for (std::size_t j = 0; j < name.size(); ++j) {
      std::string changed = name;
      changed[j] = static_cast<char>(changed[j] ^ (1 + *rc::gen::inRange(0, 255)));
      RC_ASSERT(name_hash(changed) != h);  // a collision: 2^-64
    }
  });
}

// The model's Shape (spec/shape.hpp) holds three dimensions in place and more
// on the heap; the law: whatever is done to it, it holds what a
// std::vector<uint64_t> would after the same steps, across the inline/heap
// boundary in both directions.
TEST_CASE("Shape holds what a std::vector would after the same steps", "[prop][model]") {
  rc::prop("push_back, reserve, clear, copies and moves", [] {
    Shape s;
    std::vector<std::uint64_t> v;
    const int steps = *rc::gen::inRange(0, 40);
    for (int i = 0; i < steps; ++i) {
      const auto dims = *rc::gen::container<std::vector<std::uint64_t>>(
          static_cast<std::size_t>(*rc::gen::inRange(0, 10)), rc::gen::arbitrary<std::uint64_t>());
      switch (*rc::gen::inRange(0, 7)) {
        case 0: s.push_back(dims.empty() ? 7 : dims[0]); v.push_back(dims.empty() ? 7 : dims[0]); break;
        case 1: s.reserve(dims.size() * 2); break;
        case 2: s.clear(); v.clear(); break;
        case 3: s = Shape(dims); v = dims; break;  // move-assigned from a fresh one
        case 4: { const Shape other(dims); s = other; v = dims; break; }
        case 5: { Shape moved(std::move(s)); RC_ASSERT(s.empty()); s = moved; break; }
        case 6: { Shape copy(s); s = std::move(copy); break; }
      }
      RC_ASSERT(std::vector<std::uint64_t>(s) == v);
      RC_ASSERT(s.size() == v.size());
      RC_ASSERT(s == Shape(v));
      if (!v.empty()) RC_ASSERT(s.front() == v.front() && s.back() == v.back());
    }
  });
}

// A Name (spec/name.hpp) owns its text or borrows it from an arena; the law:
// whatever is done to it, it reads as the std::string given the same steps
// would, and every text an arena stored still reads as stored (ASan, in the
// test suite, catches a name that outlives its bytes).
TEST_CASE("Name holds what a std::string would after the same steps", "[prop][model]") {
  rc::prop("owned, borrowed, copied, moved, across arena blocks, first block sized or not", [] {
    NameArena arena;
    if (*rc::gen::arbitrary<bool>()) arena.expect(*rc::gen::inRange<std::size_t>(0, 3 * NameArena::kFirstBlock));
    std::vector<std::pair<std::string_view, std::string>> stored;
    Name n;
    std::string s;
    const int steps = *rc::gen::inRange(0, 30);
    for (int i = 0; i < steps; ++i) {
      std::string text = *rc::gen::arbitrary<std::string>();
      if (*rc::gen::inRange(0, 8) == 0)  // past a block (kMaxBlock), or filling one up
        text.assign(*rc::gen::inRange<std::size_t>(NameArena::kFirstBlock - 8, NameArena::kMaxBlock + 9), 'n');
      switch (*rc::gen::inRange(0, 6)) {
        case 0: n = Name(text); s = text; RC_ASSERT(n.owned() || text.empty()); break;
        case 1: {
          const std::string_view at = arena.store(text);
          stored.emplace_back(at, text);
          n = Name::borrowed(at);
          s = text;
          RC_ASSERT(!n.owned());
          break;
        }
        case 2: { Name copy(n); RC_ASSERT(copy.owned() || copy.empty()); n = std::move(copy); break; }
        case 3: { Name moved(std::move(n)); RC_ASSERT(n.empty()); n = moved; break; }
        case 4: { const Name& same = n; n = same; break; }
        case 5: n = text; s = text; break;
      }
      RC_ASSERT(n.view() == s);
      RC_ASSERT(n == s);
      RC_ASSERT(n.size() == s.size());
      RC_ASSERT((n <=> std::string_view(text)) == (s.compare(text) <=> 0));
    }
    std::size_t bytes = 0;
    for (const auto& [at, text] : stored) {
      RC_ASSERT(at == text);
      bytes += text.size();
    }
    RC_ASSERT(arena.stored() == bytes);
    RC_ASSERT(arena.allocated() <= bytes + bytes / 3 + 3 * NameArena::kMaxBlock);
  });
}

TEST_CASE("NameArena loses at most a quarter of a block to each tail", "[unit][model]") {
  // Texts just past half a block, each followed by 45-byte names: each long
  // one gets a block of its own and the open block stays open (opening a
  // block for each lost almost half of every block).
  NameArena arena;
  for (int i = 0; i < 40; ++i) {
    arena.store(std::string(NameArena::kMaxBlock / 2 + 1, 'x'));
    for (int j = 0; j < 1000; ++j) arena.store("model.layers.12.mlp.experts.3.w2.weight.scale");
  }
  CHECK(arena.allocated() <= arena.stored() + arena.stored() / 3 + 3 * NameArena::kMaxBlock);
  // Names of a quarter block: four to a block, nothing lost past the first ones.
  NameArena quarters;
  for (int i = 0; i < 64; ++i) quarters.store(std::string(NameArena::kOwnBlock, 'q'));
  CHECK(quarters.allocated() <= quarters.stored() + 2 * NameArena::kMaxBlock);
}

TEST_CASE("NameArena::expect: the first block no larger than the text to come, from 64 bytes", "[unit][model]") {
  const auto first_block = [](std::size_t expected) {
    NameArena arena;
    arena.expect(expected);
    arena.store("w");
    return arena.allocated();
  };
  CHECK(first_block(944) == 944);  // a 1 KB header's names: one small block
  CHECK(first_block(10) == 64);
  CHECK(first_block(0) == 64);
  CHECK(first_block(1 << 30) == NameArena::kFirstBlock);
  // More than expected still fits: the next block doubles on.
  NameArena arena;
  arena.expect(100);
  const std::string_view a = arena.store(std::string(90, 'a'));
  const std::string_view b = arena.store(std::string(90, 'b'));
  CHECK(a == std::string(90, 'a'));
  CHECK(b == std::string(90, 'b'));
  CHECK(arena.allocated() == 100 + 200);
  // Once a block is open, expect changes nothing.
  arena.expect(64);
  arena.store(std::string(300, 'c'));
  CHECK(arena.allocated() == 100 + 200 + 400);
}

TEST_CASE("Shape: three dimensions in place, a tensor entry in 72 bytes", "[unit][model]") {
  // What the million-tensor benchmark's memory rests on (docs/performance.md).
  STATIC_REQUIRE(sizeof(Shape) == 32);
  STATIC_REQUIRE(sizeof(Name) == 16);
  STATIC_REQUIRE(sizeof(TensorEntry) == 72);
  const Shape expert{64, 4096, 1408};
  CHECK(expert.size() == 3);
  const Shape conv{320, 4, 3, 3};  // on the heap
  CHECK(conv.size() == 4);
  CHECK(std::vector<std::uint64_t>(conv) == std::vector<std::uint64_t>{320, 4, 3, 3});
  CHECK(Shape{} == Shape(std::vector<std::uint64_t>{}));
  CHECK_FALSE(Shape{1, 2} == Shape{1, 2, 1});
  Shape too_long;
  CHECK_THROWS_AS(too_long.reserve(Shape::kMaxDims + 1), std::length_error);  // before any allocation
  CHECK(too_long.empty());
}
