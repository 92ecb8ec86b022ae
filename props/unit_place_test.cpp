// Places are typed data ("keep places as typed data (kind, name,
// byte offset) and render them only at output"): one readable spelling per
// kind, the name kept as the file spells it, and --json giving the typed
// fields beside the readable "where".
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gen/file_bytes.hpp"
#include "props/catch.hpp"
#include "props/json_support.hpp"
#include "props/unit_support.hpp"
#include "spec/format_rules.hpp"
#include "spec/place.hpp"
#include "src/report/place_json.hpp"

using namespace safespec;
using namespace safespec::test;

TEST_CASE("Places: one readable spelling per kind, names quoted and escaped") {
  CHECK(Place{}.text().empty());
  CHECK(Place::file().text() == "file");
  CHECK(Place::header().text() == "header");
  CHECK(Place::at_byte(80).text() == "byte 80");
  CHECK(Place::tensor("a'b\\c\n").text() == "tensor 'a\\'b\\\\c\\x0a'");
  CHECK(Place::tensor_field("t", "x").below(std::uint64_t{1}).below("k").text() == "tensor 't' field 'x'[1] key 'k'");
  CHECK(Place::metadata().text() == "__metadata__");
  CHECK(Place::metadata_key("k").text() == "__metadata__['k']");
  CHECK(Place::metadata_key("_quantization_metadata").below("layers").below("p").text() ==
        "__metadata__['_quantization_metadata'] key 'layers' key 'p'");
  CHECK(Place::layer("blk.0").text() == "layer 'blk.0'");
  CHECK(Place::checkpoint("").text() == "checkpoint");
  CHECK(Place::checkpoint("dir/model.safetensors.index.json").text() == "checkpoint 'dir/model.safetensors.index.json'");
  CHECK(Place::checkpoint_of({"a.safetensors", "b\nc"}).text() == "checkpoint of 'a.safetensors', 'b\\x0ac'");
  CHECK(Place::index().text() == "index");
  CHECK(Place::weight_map().text() == "weight_map");
  CHECK(Place::index_entry("a").text() == "weight_map['a']");
  CHECK(Place::index_total_size().text() == "metadata.total_size");
  CHECK(Place::shard("m-00001-of-00002.safetensors").text() == "shard 'm-00001-of-00002.safetensors'");
  CHECK(Place::argument("x element 3").text() == "x element 3");
}

TEST_CASE("Places: JSON gives the same keys for every kind, the name unescaped") {
  CHECK(place_json(Place::tensor("a'b\"c\\")) ==
        R"({"kind":"tensor","name":"a'b\"c\\","field":null,"path":[],"byte":null})");
  CHECK(place_json(Place::at_byte(8)) == R"({"kind":"byte","name":null,"field":null,"path":[],"byte":8})");
  CHECK(place_json(Place::tensor_field("t", "x").below(std::uint64_t{2}).below("k")) ==
        R"({"kind":"tensor_field","name":"t","field":"x","path":[2,"k"],"byte":null})");
  CHECK(place_json(Place::checkpoint("")) == R"({"kind":"checkpoint","name":null,"field":null,"path":[],"byte":null})");
  // The name as the file system spells it: quotes are the text's, never the name's.
  CHECK(place_json(Place::checkpoint("d/m.index.json")) ==
        R"({"kind":"checkpoint","name":"d/m.index.json","field":null,"path":[],"byte":null})");
  CHECK(place_json(Place::checkpoint_of({"a", "b"})) ==
        R"({"kind":"checkpoint","name":null,"field":null,"path":["a","b"],"byte":null})");
  CHECK(place_json(Place::header()) == R"({"kind":"header","name":null,"field":null,"path":[],"byte":null})");
}

TEST_CASE("ST-DUPLICATE-NESTED-KEY (X3): the repeated key's place is typed down to the key",
          "[ST-DUPLICATE-NESTED-KEY]") {
  const auto nested = gen::file_with_header(
      pad8(R"({"t":{"dtype":"U8","shape":[1],"data_offsets":[0,1],"x":[0,{"k":1,"k":{"a":[],"a":0}}]}})"), 1);
  const Model m = require_model(nested);
  const Findings s = strict_findings(m);
  REQUIRE(s.size() >= 2);
  CHECK(s[0].where == Place::tensor_field("t", "x").below(std::uint64_t{1}).below("k"));
  CHECK(s[1].where == Place::tensor_field("t", "x").below(std::uint64_t{1}).below("k").below("a"));
  REQUIRE(m.header.duplicates.size() == 2);
  CHECK(m.header.duplicates[1].name == "a");
}

TEST_CASE("CLI: --json places a finding with typed fields beside the readable where") {
  CliScratch s("safespec_unit_place");
  // A gap before a tensor whose name holds a quote, a double quote and a backslash.
  const std::string name = "a'b\\\"c\\\\";  // the JSON spelling of the name
  const auto file = s.file("gap.safetensors",
                           gen::file_with_header(pad8("{\"" + name + "\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[1,2]}}"), 2));
  const Run r = s.run("check --json " + shell_word(file));
  CHECK(r.code == 1);
  const Json doc = parse_json(r.out);
  Json f = doc["files"].at(0)["findings"].at(0);
  CHECK(std::string_view(f["rule"]) == "ST-OFFSET-GAP");
  CHECK(std::string_view(f["where"]) == "tensor 'a\\'b\"c\\\\'");
  CHECK(std::string_view(f["place"]["kind"]) == "tensor");
  CHECK(std::string_view(f["place"]["name"]) == "a'b\"c\\");
  CHECK(f["place"]["byte"].is_null());
  CHECK(f["place"]["field"].is_null());
  CHECK(f["place"]["path"].size() == 0);
}

TEST_CASE("CLI: a byte place carries its offset as a number", "[ST-BUFFER-TRAILING]") {
  CliScratch s("safespec_unit_place");
  const std::string header = pad8(R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}})");
  const auto file = s.file("trailing.safetensors", gen::file_with_header(header, 3));
  const Run r = s.run("check --json " + shell_word(file));
  const Json doc = parse_json(r.out);
  Json f = doc["files"].at(0)["findings"].at(0);
  CHECK(std::string_view(f["rule"]) == "ST-BUFFER-TRAILING");
  CHECK(std::string_view(f["place"]["kind"]) == "byte");
  const std::uint64_t end = 8 + header.size() + 1;  // where tensor a ends
  CHECK(std::string_view(f["where"]) == "byte " + std::to_string(end));
  CHECK(std::uint64_t(f["place"]["byte"]) == end);
}
