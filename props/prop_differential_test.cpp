// Differential properties: the header parser (the plain reader, the
// reference reader behind it) and the reference reader alone give the same
// Model or the same Error for every input, from random bytes to header-shaped
// JSON near every F6 boundary.
#include <string>

#include "gen/file_bytes.hpp"
#include "gen/json_grammar.hpp"
#include "gen/models.hpp"
#include "gen/mutations.hpp"
#include "props/catch.hpp"
#include "spec/file_reader.hpp"
#include "spec/rule_catalogue.hpp"
#include "src/parse/load.hpp"
#include "src/oracles/oracles.hpp"

namespace sg = safespec::gen;
using namespace safespec;

namespace {

// One parser per thread of properties: reuse is part of what is tested (the
// fast parser keeps state between calls).
HeaderParser& shared_parser() {
  static HeaderParser parser;
  return parser;
}

// Returns whether the fast path (not the fallback) decided.
bool assert_agree(const std::vector<std::uint8_t>& bytes) {
  if (auto why = parsers_disagree(bytes, shared_parser())) RC_FAIL(*why + "\nbytes: " + sg::escaped_bytes(bytes));
  // A fresh parser gives the same answer as the reused one.
  HeaderParser fresh;
  if (!(read_model_fast(bytes, fresh) == read_model_fast(bytes, shared_parser())))
    RC_FAIL("a fresh parser and a reused one disagree\nbytes: " + sg::escaped_bytes(bytes));
  const bool fast = shared_parser().last_was_fast();
  if (auto why = roundtrip_fails(bytes, shared_parser())) RC_FAIL("round trip: " + *why + "\nbytes: " + sg::escaped_bytes(bytes));
  return fast;
}

std::vector<std::uint8_t> with_text(const std::string& header, std::size_t data) {
  return sg::file_with_header(header, data);
}

// How a header text was decided, for the distribution printed after a run.
void classify(const std::vector<std::uint8_t>& bytes) {
  const Result<Model> r = read_model_reference(bytes);
  RC_TAG(r.ok() ? std::string("parses") : std::string(rule_name(r.error().rule)));
}

}  // namespace

TEST_CASE("fast parser agrees with the reference reader", "[prop][differential]") {
  rc::prop("(a) arbitrary bytes", [](const std::vector<std::uint8_t>& bytes) { assert_agree(bytes); });

  rc::prop("(b) a length prefix and an arbitrary header string", [] {
    const std::string header = *rc::gen::oneOf(
        rc::gen::arbitrary<std::string>(),
        rc::gen::container<std::string>(rc::gen::elementOf(std::string("{}[]\":,0123456789-+.eE \t\r\nntrufals\\u/x"))));
    const std::size_t data = *rc::gen::inRange<std::size_t>(0, 8);
    std::vector<std::uint8_t> bytes = with_text(header, data);
    if (*rc::gen::inRange(0, 4) == 0) {  // N off by a little
      const std::uint64_t n = header.size() + *rc::gen::inRange<std::uint64_t>(0, data + 3) - 1;
      for (int i = 0; i < 8; ++i) bytes[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(n >> (8 * i));
    }
    assert_agree(bytes);
  });

  rc::prop("(c) valid files with single-byte edits in the header", [] {
    const sg::Plan plan = sg::plan_of(*sg::file_spec());
    const sg::Layout layout = *rc::gen::arbitrary<bool>() ? sg::layout_of(plan) : sg::decorated(plan);
    std::string header = sg::header_text(layout);
    const int edits = *rc::gen::inRange(1, 3);
    bool fix_length = *rc::gen::inRange(0, 4) != 0;
    for (int e = 0; e < edits; ++e) {
      const int kind = *rc::gen::inRange(0, 3);
      const std::uint8_t byte = *rc::gen::oneOf(
          rc::gen::arbitrary<std::uint8_t>(),
          rc::gen::elementOf(std::vector<std::uint8_t>{'"', '\\', '{', '}', '[', ']', ',', ':', '-', '0', '1', '.', 'e',
                                                       ' ', 0, 0x80, 0xC3, 0xFF, 'u', 'n'}));
      if (kind == 0 && !header.empty()) {  // replace
        header[*rc::gen::inRange<std::size_t>(0, header.size())] = static_cast<char>(byte);
      } else if (kind == 1) {  // insert
        header.insert(header.begin() + static_cast<std::ptrdiff_t>(*rc::gen::inRange<std::size_t>(0, header.size() + 1)),
                      static_cast<char>(byte));
      } else if (!header.empty()) {  // delete
        header.erase(*rc::gen::inRange<std::size_t>(0, header.size()), 1);
      }
    }
    std::vector<std::uint8_t> bytes = sg::file_with_length(
        fix_length ? header.size() : sg::header_text(layout).size(), header, 0);
    bytes.insert(bytes.end(), layout.data.begin(), layout.data.end());
    classify(bytes);
    RC_CLASSIFY(assert_agree(bytes), "fast path");
  });

  rc::prop("(d) header-shaped JSON texts from a grammar", [] {
    const std::string header = *sg::header_like_text();
    const std::size_t data = *rc::gen::inRange<std::size_t>(0, 48);
    const auto bytes = with_text(header, data);
    classify(bytes);
    RC_CLASSIFY(assert_agree(bytes), "fast path");
  });

  rc::prop("(e) arbitrary JSON values as the whole header", [] {
    const std::string header = *sg::json_value(4, false);
    assert_agree(with_text(header, 0));
  });

  rc::prop("(f) nesting around serde_json's recursion limit", [] {
    const int depth = *rc::gen::inRange(120, 132);
    const bool objects = *rc::gen::arbitrary<bool>();
    const std::string core = *rc::gen::element<std::string>("0", "[]", "{}", "\"x\"", "-0", "1.0");
    const int where = *rc::gen::inRange(0, 3);
    std::string header;
    if (where == 0) {  // the whole header
      header = sg::nested_value(depth, objects, core);
      if (!header.empty() && header[0] == '[') header = "{\"a\":" + header + "}";
    } else if (where == 1) {  // an unknown field of a valid tensor
      header = "{\"t\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1],\"x\":" +
               sg::nested_value(depth, objects, core) + "}}";
    } else {  // a metadata value
      header = "{\"__metadata__\":{\"k\":" + sg::nested_value(depth, objects, core) + "}}";
    }
    const auto bytes = with_text(header, where == 1 ? 1 : 0);
    classify(bytes);
    RC_CLASSIFY(assert_agree(bytes), "fast path");
  });

  rc::prop("(h) valid files with strings, keys and extra fields respelled", [] {
    const sg::Plan plan = sg::plan_of(*sg::file_spec());
    sg::Layout layout = sg::decorated(plan);
    for (sg::Member& m : layout.members) {
      const int kind = *rc::gen::inRange(0, 6);
      if (kind == 0) {
        m.key = *sg::json_string_token(false);  // any spelling, sometimes invalid
      } else if (kind == 1 && !m.value.empty() && m.value[0] == '{' && m.value.size() > 2) {
        // one more member at the front of the value object
        const std::string extra = *sg::json_string_token(false) + ":" +
                                  *rc::gen::weightedOneOf<std::string>({{4, sg::json_string_token(false)},
                                                                        {1, sg::json_value(3, false)}});
        m.value.insert(1, extra + ",");
      }
    }
    const auto bytes = sg::bytes_of(layout);
    classify(bytes);
    RC_CLASSIFY(assert_agree(bytes), "fast path");
  });

  rc::prop("(g) every catalogue mutant", [] {
    const auto catalogue = sg::mutation_catalogue();
    const sg::Mutation& m = catalogue[*rc::gen::inRange<std::size_t>(0, catalogue.size())];
    const sg::Mutant mutant = m.apply(sg::plan_of(*sg::file_spec()));
    assert_agree(mutant.bytes);
  });
}
