#include "src/oracles.hpp"

#include <algorithm>

#include "spec/file_reader.hpp"
#include "spec/format_rules.hpp"
#include "spec/header_reader.hpp"
#include "spec/rule_catalogue.hpp"
#include "src/load.hpp"
#include "src/writer.hpp"

namespace safespec {

namespace {

std::string describe(const Result<Model>& r) {
  if (r.ok()) return "a model of " + std::to_string(r.value().header.tensors.size()) + " tensors";
  return std::string(rule_name(r.error().rule)) + " at " + r.error().where + ": " + r.error().message;
}

bool has_errors(const Findings& f) {
  return std::any_of(f.begin(), f.end(), [](const Finding& x) { return x.severity == Severity::Error; });
}

}  // namespace

Header normalized(const Header& h) {
  Header out;
  out.tensors = h.tensors;
  std::sort(out.tensors.begin(), out.tensors.end(), [](const TensorEntry& a, const TensorEntry& b) {
    return canonical_less(a.dtype, a.name, b.dtype, b.name);
  });
  out.metadata_state = h.metadata_state == MetadataState::Present ? MetadataState::Present : MetadataState::Absent;
  out.metadata = h.metadata;
  std::sort(out.metadata.begin(), out.metadata.end());
  return out;
}

std::optional<std::string> parsers_disagree(std::span<const std::uint8_t> file, FastHeaderParser& parser) {
  const Result<Model> fast = read_model_fast(file, parser);
  const Result<Model> reference = read_model_reference(file);
  if (fast == reference) return std::nullopt;
  return "fast parser gives " + describe(fast) + "; reference reader gives " + describe(reference);
}

std::optional<std::string> roundtrip_fails(std::span<const std::uint8_t> file, FastHeaderParser& parser) {
  const Result<Model> parsed = read_model_fast(file, parser);
  if (!parsed) return std::nullopt;
  const Model& m = parsed.value();

  // Header level: canonical text parses back to the same header.
  const std::string text = canonical_header_json(m.header);
  std::string padded = text;
  padded.resize(text.size() + fast_parser_padding(), ' ');
  const Result<Header> again = parser.parse(std::string_view(padded).substr(0, text.size()));
  if (!again) return "canonical header does not parse: " + again.error().message;
  if (normalized(again.value()) != normalized(m.header)) return "canonical header parses to another header";

  // File level, for files the reference accepts: the data slices are in bounds.
  if (has_errors(check_model(m, Profile::Safetensors))) return std::nullopt;
  const std::uint64_t data_start = 8 + m.header_length;
  std::vector<TensorView> views;
  for (const TensorEntry& t : m.header.tensors)
    views.push_back(TensorView{t.name, t.dtype, t.shape, file.subspan(data_start + t.begin, t.end - t.begin)});
  std::optional<Metadata> metadata;
  if (m.header.metadata_state == MetadataState::Present) metadata = m.header.metadata;
  const auto written = serialize(views, metadata);
  if (!written) return "the writer refuses an accepted file: " + written.error().message;
  const auto& bytes = written.value();
  const Result<Model> back = read_model_fast(bytes, parser);
  if (!back) return "written file does not parse: " + back.error().message;
  if (has_errors(check_model(back.value(), Profile::Strict))) return "written file has strict error findings";
  if (normalized(back.value().header).metadata != normalized(m.header).metadata) return "metadata changed";
  const std::uint64_t start2 = 8 + back.value().header_length;
  for (const TensorEntry& t : back.value().header.tensors) {
    const auto it = std::find_if(views.begin(), views.end(), [&](const TensorView& v) { return v.name == t.name; });
    if (it == views.end() || it->dtype != t.dtype || it->shape != t.shape) return "tensor changed: " + t.name;
    if (!std::equal(it->data.begin(), it->data.end(), bytes.begin() + static_cast<std::ptrdiff_t>(start2 + t.begin),
                    bytes.begin() + static_cast<std::ptrdiff_t>(start2 + t.end)))
      return "tensor bytes changed: " + t.name;
  }
  if (back.value().header.tensors.size() != views.size()) return "tensor count changed";
  std::vector<TensorView> views2;
  for (const TensorEntry& t : back.value().header.tensors)
    views2.push_back(TensorView{t.name, t.dtype, t.shape,
                                std::span(bytes).subspan(start2 + t.begin, t.end - t.begin)});
  const auto rewritten = serialize(views2, metadata);
  if (!rewritten || rewritten.value() != bytes) return "serializing the written file does not reproduce it";
  return std::nullopt;
}

}  // namespace safespec
