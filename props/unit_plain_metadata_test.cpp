// The plain reader's __metadata__: a repeated key makes the text not plain
// (the full readers then report it), caught among the first few keys by
// comparison and past them through the name index, at any position.
#include <optional>
#include <string>

#include "props/catch.hpp"
#include "spec/name_index.hpp"
#include "src/parse/plain_header.hpp"

using namespace safespec;

namespace {

// A header whose metadata has `keys` entries k0, k1, ..., with entry `repeat`
// (if any) named as entry `of` instead.
std::string plain_metadata_header(std::size_t keys, std::optional<std::size_t> repeat = {}, std::size_t of = 0) {
  std::string meta;
  for (std::size_t i = 0; i < keys; ++i) {
    const std::size_t name = repeat && *repeat == i ? of : i;
    meta += (i ? "," : "") + std::string("\"k") + std::to_string(name) + "\":\"v" + std::to_string(i) + "\"";
  }
  return R"({"__metadata__":{)" + meta + R"(},"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})";
}

}  // namespace

TEST_CASE("plain reader: distinct metadata keys are plain, in order, values kept", "[unit][plain]") {
  NameIndex names;
  for (std::size_t keys : {1u, 7u, 8u, 9u, 40u}) {
    INFO(keys);
    const auto h = parse_plain_header(plain_metadata_header(keys), names);
    REQUIRE(h.has_value());
    REQUIRE(h->metadata.size() == keys);
    CHECK(h->metadata.back().first == "k" + std::to_string(keys - 1));
    CHECK(h->metadata.back().second == "v" + std::to_string(keys - 1));
    REQUIRE(h->tensors.size() == 1);
  }
}

TEST_CASE("plain reader: a repeated metadata key, early or late, makes the text not plain", "[unit][plain]") {
  NameIndex names;
  // Among the compared keys, at the switch to the index, and past it (against
  // a key before the switch and one after it).
  for (const auto& [at, of] : {std::pair<std::size_t, std::size_t>{1, 0}, {7, 3}, {8, 0}, {9, 8}, {30, 2}, {39, 20}}) {
    INFO(at << " repeats " << of);
    CHECK_FALSE(parse_plain_header(plain_metadata_header(40, at, of), names).has_value());
  }
  // The index is the parser's own: a header read after one with repeats is plain.
  CHECK(parse_plain_header(plain_metadata_header(40), names).has_value());
}
