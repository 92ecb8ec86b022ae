// The format table's rows are complete: a format added as a row of
// spec/quant/formats.cpp but missing a column, its numerics row, its spec
// text or its rules' text fails here by name (docs/CONTRIBUTING.md lists what
// a format touches; c_api.layers_equal_command adds the example layer).
#include <fstream>
#include <sstream>
#include <string>

#include "props/catch.hpp"
#include "spec/quant/formats.hpp"
#include "spec/quant/logical_size.hpp"
#include "spec/rule_catalogue.hpp"
#include "src/commands/format_numerics.hpp"

using namespace safespec;

namespace {

std::string file_text(const char* path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("format table: every row has every column, a numerics row, spec text and rule text", "[quant][format-table]") {
  const std::string layers = file_text("docs/spec/quant-layers.md");
  const std::string rules = file_text("docs/RULES.md");
  REQUIRE(!layers.empty());
  REQUIRE(!rules.empty());
  std::size_t rows = 0;
  for (const quant::FormatSpec& f : quant::all_formats()) {
    INFO("format " << f.name);
    CHECK(static_cast<std::size_t>(f.format) == rows++);
    CHECK(quant::find_format(f.name) == &f);
    CHECK(f.header_rules != nullptr);
    CHECK(is_quant_rule(f.tensors_rule));
    CHECK(rules.find(std::string(rule_name(f.tensors_rule))) != std::string::npos);
    CHECK(layers.find("`" + std::string(f.name) + "`") != std::string::npos);
    // A required weight whose example shape has a logical size under the row's packing.
    const quant::FormatTensor* weight = nullptr;
    for (const quant::FormatTensor& t : f.tensors)
      if (t.suffix == "weight") weight = &t;
    REQUIRE(weight != nullptr);
    CHECK(weight->required);
    CHECK(quant::logical_shape(f.packing, std::span(weight->example, weight->rank)));
    CHECK(!f.weight_keeps.empty());
    CHECK(!f.comfy_torch_dtype.empty());
    const FormatNumerics& n = format_numerics(f.format);
    CHECK(n.format == f.format);
    CHECK(n.dequant != nullptr);
    CHECK(find_numerics(f.name) == &n);
  }
  CHECK(rows == quant::kQuantFormatCount);
  CHECK(find_numerics("int9") == nullptr);
  CHECK(linear_formats() == "int8_tensorwise, convrot_w4a4, asym_w4a8_int8, svdquant_w4a4");
}
