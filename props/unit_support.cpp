#include "props/unit_support.hpp"

#include <utility>

#include "props/catch.hpp"
#include "spec/rule_catalogue.hpp"
#include "src/load.hpp"

namespace safespec::test {

std::string describe(const Result<Model>& r) {
  if (r.ok()) return "ok: " + std::to_string(r.value().header.tensors.size()) + " tensors";
  return std::string(rule_name(r.error().rule)) + " | " + r.error().where + " | " + r.error().message;
}

Result<Model> parse_both(const Bytes& file) {
  auto ref = read_model_reference(file);
  FastHeaderParser parser;
  auto fast = read_model_fast(file, parser);
  CHECK(describe(fast) == describe(ref));
  CHECK(fast == ref);
  return ref;
}

void require_error(const Bytes& file, std::string_view rule, std::string_view where, std::string_view message) {
  const auto r = parse_both(file);
  INFO(describe(r));
  REQUIRE_FALSE(r.ok());
  CHECK(std::string(rule_name(r.error().rule)) == rule);
  CHECK(r.error().where == where);
  CHECK(r.error().message == message);
}

Model require_model(const Bytes& file) {
  auto r = parse_both(file);
  INFO(describe(r));
  REQUIRE(r.ok());
  return std::move(r).value();
}

std::string pad8(std::string header) {
  header.resize((header.size() + 7) / 8 * 8, ' ');
  return header;
}

}  // namespace safespec::test
