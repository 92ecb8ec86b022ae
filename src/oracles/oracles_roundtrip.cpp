#include "src/oracles/oracles_roundtrip.hpp"

#include <algorithm>
#include <exception>
#include <set>

#include "spec/checked_math.hpp"
#include "spec/file_reader.hpp"
#include "spec/format_rules.hpp"
#include "spec/quant/analyze.hpp"
#include "spec/rule_catalogue.hpp"
#include "spec/utf8.hpp"
#include "src/commands/check.hpp"
#include "src/parse/load.hpp"
#include "src/oracles/oracles.hpp"
#include "spec/verdicts.hpp"

namespace safespec {

namespace {

constexpr std::string_view kFileName = "roundtrip.safetensors";

std::string describe(const Result<Model>& r) {
  if (!r) return std::string(rule_name(r.error().rule)) + " at " + r.error().where.text() + ": " + r.error().message;
  const Model& m = r.value();
  std::string out = "file_size " + std::to_string(m.file_size) + ", N " + std::to_string(m.header_length) + ", " +
                    std::to_string(m.header.tensors.size()) + " tensors:";
  for (const TensorEntry& t : m.header.tensors)
    out += " '" + t.name.str() + "' " + std::string(dtype_name(t.dtype)) + " [" + std::to_string(t.begin) + "," +
           std::to_string(t.end) + "]";
  out += ", " + std::to_string(m.header.metadata.size()) + " metadata keys";
  return out;
}

// The report the spec functions give for the model in memory: what
// check_memory does after parsing, with the description's marker bytes in
// place of bytes read from the file (comfy-quant-markers.md S6: markers sorted
// by name).
FileReport report_from_model(const Model& model, const ModelDescription& d, Profile p) {
  FileReport r;
  r.path = std::string(kFileName);
  r.findings = check_model(model, p);
  r.model = model;
  attach_container_verdicts(r.findings, 0, nullptr);  // a model the writer accepts: the reference reads it
  quant::CheckpointFile file{r.path, &*r.model, {}};
  for (const OwnedTensor& t : d.tensors)
    if (std::string_view(t.name).ends_with(quant::kMarkerSuffix)) {
      const bool read = t.data.size() <= kMaxMarkerReadBytes;
      file.markers.push_back(
          quant::MarkerBytes{t.name, read, read ? std::string(t.data.begin(), t.data.end()) : std::string()});
    }
  std::sort(file.markers.begin(), file.markers.end(),
            [](const quant::MarkerBytes& a, const quant::MarkerBytes& b) { return a.tensor < b.tensor; });
  quant::Analysis a = quant::analyze(std::span(&file, 1));
  for (quant::LocatedFinding& lf : a.findings) r.findings.push_back(std::move(lf.finding));
  judge({&r}, a.sglang_config);
  apply_profile(r, p);
  return r;
}

}  // namespace

std::vector<RuleId> description_violations(const ModelDescription& d) {
  std::set<RuleId> out;
  std::set<std::string_view> names;
  std::uint64_t total = 0;
  for (const OwnedTensor& t : d.tensors) {
    if (first_invalid_utf8(t.name)) out.insert(RuleId::HeaderUtf8);  // F5
    if (t.name == "__metadata__") out.insert(RuleId::TensorNameReserved);  // X10
    if (!names.insert(t.name).second) out.insert(RuleId::DuplicateTensor);
    const TensorEntry probe{t.name, t.dtype, t.shape, 0, 0};
    bool shape_ok = true;
    for (auto f : {rule_shape_overflow(probe), rule_nbits_overflow(probe), rule_misaligned_bits(probe)})  // F9-F11
      if (f) out.insert(f->rule), shape_ok = false;
    if (!shape_ok) continue;
    const std::uint64_t bytes = *tensor_byte_size(t.shape, t.dtype);
    if (bytes != t.data.size()) out.insert(RuleId::SizeMismatch);  // W3
    const auto sum = checked_add(total, bytes);
    if (!sum) out.insert(RuleId::NbitsOverflow);
    else total = *sum;
  }
  if (d.metadata) {
    std::set<std::string_view> keys;
    for (const auto& [k, v] : *d.metadata) {
      if (first_invalid_utf8(k) || first_invalid_utf8(v)) out.insert(RuleId::HeaderUtf8);
      if (!keys.insert(k).second) out.insert(RuleId::DuplicateMetadataKey);
    }
  }
  return {out.begin(), out.end()};
}

Model expected_model(const ModelDescription& d) {
  Model m;
  for (const OwnedTensor& t : d.tensors) m.header.tensors.push_back(TensorEntry{t.name, t.dtype, t.shape, 0, 0});
  std::sort(m.header.tensors.begin(), m.header.tensors.end(), [](const TensorEntry& a, const TensorEntry& b) {
    return canonical_less(a.dtype, a.name, b.dtype, b.name);
  });
  std::uint64_t offset = 0;
  for (TensorEntry& t : m.header.tensors) {
    t.begin = offset;
    t.end = offset += *tensor_byte_size(t.shape, t.dtype);
  }
  if (d.metadata) {
    m.header.metadata_state = MetadataState::Present;
    m.header.metadata = *d.metadata;
    std::sort(m.header.metadata.begin(), m.header.metadata.end());
  }
  m.header_length = (canonical_header_json(m.header).size() + 7) / 8 * 8;  // W5
  m.file_size = 8 + m.header_length + offset;
  return m;
}

std::optional<std::string> model_roundtrip_fails(const ModelDescription& d, HeaderParser& parser) {
  std::vector<TensorView> views;
  for (const OwnedTensor& t : d.tensors) views.push_back(TensorView{t.name, t.dtype, t.shape, t.data});
  const auto written = serialize(views, d.metadata);
  const std::vector<RuleId> broken = description_violations(d);
  if (!written) {
    if (std::find(broken.begin(), broken.end(), written.error().rule) != broken.end()) return std::nullopt;
    return "the writer refuses with " + std::string(rule_name(written.error().rule)) + " at " +
           written.error().where.text() + " (" + written.error().message + "), a rule the description does not break";
  }
  if (!broken.empty())
    return "the writer accepts a description that breaks " + std::string(rule_name(broken.front()));

  // Same model, whichever reader reads it.
  const std::vector<std::uint8_t>& bytes = written.value();
  const Model expected = expected_model(d);
  if (bytes.size() != expected.file_size)
    return "written file has " + std::to_string(bytes.size()) + " bytes, expected " +
           std::to_string(expected.file_size);
  const Result<Model> fast = read_model_fast(bytes, parser);
  if (fast != Result<Model>(expected))
    return "fast parser reads " + describe(fast) + "\nexpected " + describe(expected);
  const Result<Model> reference = read_model_reference(bytes);
  if (reference != Result<Model>(expected))
    return "reference reader reads " + describe(reference) + "\nexpected " + describe(expected);
  const std::uint64_t start = 8 + expected.header_length;
  for (const OwnedTensor& t : d.tensors) {
    const auto e = std::find_if(expected.header.tensors.begin(), expected.header.tensors.end(),
                                [&](const TensorEntry& x) { return x.name == t.name; });
    if (!std::equal(t.data.begin(), t.data.end(), bytes.begin() + static_cast<std::ptrdiff_t>(start + e->begin)))
      return "tensor bytes changed: " + t.name;
  }

  // Same verdict, from the model or from the bytes, under every profile.
  const MemoryFile file{std::string(kFileName), bytes};
  try {
    for (Profile p : kProfiles) {
      const FileReport from_model = report_from_model(expected, d, p);
      const std::vector<FileReport> from_bytes = check_memory(std::span(&file, 1), p, parser);
      if (from_bytes.size() != 1) return "check_memory gave " + std::to_string(from_bytes.size()) + " reports";
      const std::string a = describe_report(from_model), b = describe_report(from_bytes.front());
      if (a != b)
        return std::string(profile_name(p)) + " profile: the model's report\n" + a + "\ndiffers from the bytes'\n" + b;
    }
  } catch (const std::exception& e) {
    return std::string("checking threw: ") + e.what();
  }
  return std::nullopt;
}

}  // namespace safespec
