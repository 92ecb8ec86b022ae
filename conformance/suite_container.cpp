// Container files from the generators: each mutation of the container
// catalogue (gen/mutations.hpp, one rule each) applied to valid
// generated files, valid generated files themselves, the decorations the
// reference reads, and every dtype written by the canonical writer (W1-W8).
#include <algorithm>
#include <cstdio>

#include "conformance/suite_parts.hpp"
#include "gen/layout.hpp"
#include "gen/models.hpp"
#include "gen/mutations.hpp"
#include "spec/dtype.hpp"
#include "spec/rule_catalogue.hpp"
#include "src/io/writer.hpp"

namespace safespec::conformance::detail {

namespace {

constexpr std::size_t kSmallContainer = 2048;  // preferred largest file, bytes

std::string two_digits(std::size_t i) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%02zu", i % 100);
  return buf;
}

bool contains(const std::vector<RuleId>& rules, RuleId r) {
  return std::find(rules.begin(), rules.end(), r) != rules.end();
}

// Samples of one mutation: the first breaks exactly its rule (no other
// finding, warnings included); the others are other draws in which the rule
// fires, exact where a few attempts find one.
std::vector<Draft> mutation_drafts(const gen::Mutation& m, std::size_t index, std::size_t samples) {
  std::vector<Draft> out;
  const bool warning = m.expect == gen::Expect::Warning;
  const std::string stem = std::string(warning ? "accept_" : "reject_") + rule_text(m.rule) + "_" + std::string(m.name);
  for (std::size_t s = 0; s < samples; ++s) {
    std::optional<Draft> loose;
    std::optional<Draft> chosen;
    for (std::uint64_t attempt = 0; attempt < 60 && !chosen; ++attempt) {
      const auto mutant = sample(rc::gen::exec([&m] { return m.apply(gen::plan_of(*gen::file_spec())); }),
                                 key_of("container", index, s, attempt), 12);
      if (std::any_of(out.begin(), out.end(), [&](const Draft& d) { return d.bytes == mutant.bytes; })) continue;
      const std::vector<RuleId> found = strict_rules(mutant.bytes);
      if (!contains(found, m.rule)) continue;
      Draft d{stem + "_" + std::to_string(s + 1) + ".safetensors",
              "container mutation '" + std::string(m.name) + "' (" + rule_text(m.rule) + ") of a generated valid file: " +
                  mutant.what,
              mutant.bytes, {}, found, {}};
      const bool exact = found == std::vector<RuleId>{m.rule};
      if (exact && d.bytes.size() <= kSmallContainer) chosen = std::move(d);
      else if (!loose || (exact && loose->rules.size() > 1)) loose = std::move(d);
    }
    if (!chosen && loose) chosen = std::move(loose);
    if (chosen) out.push_back(std::move(*chosen));
  }
  return out;
}

std::vector<std::uint8_t> pattern(std::size_t n, unsigned seed) {
  std::vector<std::uint8_t> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<std::uint8_t>(i * 31 + seed);
  return out;
}

std::optional<Bytes> written(const std::vector<TensorView>& views, const std::optional<Metadata>& meta) {
  auto bytes = serialize(views, meta);
  if (!bytes) return std::nullopt;
  return std::move(bytes).value();
}

// Every dtype as a vector, a scalar and a zero-sized tensor, through the
// canonical writer; values are arbitrary bit patterns (a reader never looks).
void dtype_drafts(std::vector<Draft>& out) {
  for (const DtypeInfo& info : dtype_table()) {
    const std::string n(info.name);
    struct Shape {
      const char* what;
      std::vector<std::uint64_t> dims;
    };
    for (const Shape& s : {Shape{"vector", {8}}, Shape{"matrix", {2, 4}}, Shape{"scalar", {}}, Shape{"zero_sized", {0, 3}}}) {
      std::uint64_t count = 1;
      for (auto dim : s.dims) count *= dim;
      if ((count * info.bits) % 8 != 0) continue;  // sub-byte scalars: hand-written below
      const auto data = pattern(count * info.bits / 8, info.bits);
      auto bytes = written({TensorView{"t", info.dtype, s.dims, data}}, std::nullopt);
      if (!bytes) continue;
      out.push_back(Draft{"accept_dtype_" + n + "_" + s.what + ".safetensors",
                          "one " + n + " tensor, " + s.what + ", as the canonical writer writes it", *bytes, {}, {}, {}});
    }
  }
  // All 22 in one file, in W1 order (dtype descending).
  std::vector<std::vector<std::uint8_t>> datas;
  std::vector<TensorView> views;
  for (const DtypeInfo& info : dtype_table()) datas.push_back(pattern(2 * info.bits, 7));
  for (std::size_t i = 0; i < dtype_table().size(); ++i) {
    const DtypeInfo& info = dtype_table()[i];
    views.push_back(TensorView{"t_" + std::string(info.name), info.dtype, {16}, datas[i]});
  }
  if (auto bytes = written(views, Metadata{{"format", "pt"}}))
    out.push_back(Draft{"accept_dtype_all_22_in_one_file.safetensors",
                        "one [16] tensor of every dtype, the writer's dtype-descending order (W1); unaligned starts are "
                        "not possible here because every size is a multiple of 8 bytes",
                        *bytes, {}, {}, {}});
}

}  // namespace

std::vector<Draft> container_drafts() {
  std::vector<Draft> out;
  const auto catalogue = gen::mutation_catalogue();
  for (std::size_t i = 0; i < catalogue.size(); ++i) {
    auto more = mutation_drafts(catalogue[i], i, 3);
    for (Draft& d : more) out.push_back(std::move(d));
  }
  // Valid generated files: escaped names, every dtype, metadata or none.
  for (std::size_t i = 0, attempt = 0; i < 30 && attempt < 200; ++attempt) {
    const auto spec = sample(gen::file_spec(), key_of("valid", 0, 0, attempt), 12);
    auto bytes = written(gen::views_of(spec), spec.metadata);
    if (!bytes || bytes->size() > kSmallContainer || !strict_rules(*bytes).empty()) continue;
    out.push_back(Draft{"accept_generated_valid_" + two_digits(++i) + ".safetensors",
                        "a generated valid file (gen/models.hpp: names that need escaping, any dtype, optional "
                        "metadata) written by the canonical writer",
                        *bytes, {}, {}, {}});
  }
  // Decorations the reference reads: leading whitespace, unknown fields,
  // null metadata, duplicate keys whose survivor tiles, odd padding.
  for (std::size_t i = 0, attempt = 0; i < 12 && attempt < 200; ++attempt) {
    const auto layout = sample(rc::gen::exec([] { return gen::decorated(gen::plan_of(*gen::file_spec())); }),
                               key_of("decorated", 0, 0, attempt), 12);
    const Bytes bytes = gen::bytes_of(layout);
    const std::vector<RuleId> found = strict_rules(bytes);
    if (bytes.size() > kSmallContainer || found.empty()) continue;
    const auto first_error = std::find_if(found.begin(), found.end(),
                                          [](RuleId r) { return rule_info(r).severity == Severity::Error; });
    const std::string stem = first_error == found.end() ? "accept_" + rule_text(found.front())
                                                        : "reject_" + rule_text(*first_error);
    out.push_back(Draft{stem + "_decorated_" + two_digits(++i) + ".safetensors",
                        "a generated valid file with decorations the reference reader accepts (leading whitespace, "
                        "unknown fields, null metadata, repeated keys whose survivor tiles, odd padding)",
                        bytes, {}, found, {}});
  }
  dtype_drafts(out);
  return out;
}

}  // namespace safespec::conformance::detail
