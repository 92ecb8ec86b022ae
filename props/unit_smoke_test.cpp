#include "props/catch.hpp"

#include "props/gen/file_bytes.hpp"
#include "spec/file_reader.hpp"

using namespace safespec;

TEST_CASE("F1-F13 upstream test_deserialization vector parses") {
  const auto file = gen::file_with_header(R"({"test":{"dtype":"I32","shape":[2,2],"data_offsets":[0,16]}})", 16);
  const auto m = read_model_reference(file);
  REQUIRE(m.ok());
  REQUIRE(m.value().header.tensors.size() == 1);
  CHECK(m.value().header.tensors[0].name == "test");
}
