#include "props/catch.hpp"

#include "gen/file_bytes.hpp"
#include "spec/file_reader.hpp"

using namespace safespec;

TEST_CASE("F1-F13 upstream test_deserialization vector parses") {
  const auto file = gen::file_with_header(R"({"test":{"dtype":"I32","shape":[2,2],"data_offsets":[0,16]}})", 16);
  const auto m = read_model_reference(file);
  REQUIRE(m.ok());
  REQUIRE(m.value().header.tensors.size() == 1);
  CHECK(m.value().header.tensors[0].name == "test");
}

// catch_discover_tests hands CTest the test names as a CMake list, in which
// an unbalanced '[' swallows every later element: one name with "[0, R'C')"
// turned 55 tests, all properties among them, into a single CTest entry that
// ran nothing and passed.
TEST_CASE("every test name balances its square brackets so that CTest runs each test on its own") {
  for (const Catch::TestCase& t : Catch::getAllTestCasesSorted(*Catch::getCurrentContext().getConfig())) {
    int depth = 0;
    bool balanced = true;
    for (char c : t.name) {
      depth += c == '[' ? 1 : c == ']' ? -1 : 0;
      balanced = balanced && depth >= 0;
    }
    INFO(t.name);
    CHECK((balanced && depth == 0));
  }
}
