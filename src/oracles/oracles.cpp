#include "src/oracles/oracles.hpp"

#include <algorithm>
#include <exception>
#include <map>
#include <tuple>

#include "spec/file_reader.hpp"
#include "spec/format_rules.hpp"
#include "spec/header_reader.hpp"
#include "spec/python/python_json.hpp"
#include "spec/quant/formats.hpp"
#include "spec/quant/marker_values.hpp"
#include "spec/reference/reference_reader.hpp"
#include "spec/rule_catalogue.hpp"
#include "spec/utf8.hpp"
#include "src/parse/load.hpp"
#include "src/io/writer.hpp"

namespace safespec {

namespace {

std::string describe(const Result<Model>& r) {
  if (r.ok()) return "a model of " + std::to_string(r.value().header.tensors.size()) + " tensors";
  return std::string(rule_name(r.error().rule)) + " at " + r.error().where.text() + ": " + r.error().message;
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

std::optional<std::string> parsers_disagree(std::span<const std::uint8_t> file, HeaderParser& parser) {
  const Result<Model> fast = read_model_fast(file, parser);
  const Result<Model> reference = read_model_reference(file);
  if (fast != reference)
    return "fast parser gives " + describe(fast) + "; reference reader gives " + describe(reference);
  // The reference's answer as `check` works it out (from the model when the
  // text is plain) is the reference reader's own.
  const LoadedFile whole = read_file_memory(file, parser);
  const bool whole_fast = parser.last_was_fast();
  const reference::Answer& loaded = whole.reference;
  const reference::Answer own = reference::read_metadata(file, file.size());
  if (loaded.failure != own.failure || loaded.alternatives != own.alternatives)
    return "check's reference answer is " + (loaded.failure ? loaded.failure->display : std::string("success")) +
           "; the reference reader's is " + (own.failure ? own.failure->display : std::string("success"));
  // A local file's header is read in windows (src/parse/load.cpp): cut anywhere,
  // it reads as the whole text does, and the fast path decides it alike (a
  // cut mistaken for a text that is not plain would cost a second reading).
  // Window 1 grows through every size; the other cuts the text at a place
  // that moves with the input.
  for (const std::size_t window : {std::size_t{1}, 7 + file.size() % 57}) {
    const LoadedFile cut = read_file_windowed(file, parser, window);
    const std::string in = "read in windows of " + std::to_string(window) + " bytes, ";
    if (!(cut.model == whole.model) || cut.reference.failure != whole.reference.failure ||
        cut.reference.alternatives != whole.reference.alternatives)
      return in + "the header gives " + describe(cut.model) + "; read whole, " + describe(whole.model);
    if (parser.last_was_fast() != whole_fast)
      return in + "the fast path " + (whole_fast ? "does not decide" : "decides") + " a header it " +
             (whole_fast ? "decides" : "does not decide") + " read whole";
    // A unit read again from a longer window stores its name once (a 99.9 MB
    // name twice would break the memory bound).
    if (cut.model && whole_fast) {
      const Header& h = cut.model.value().header;
      std::size_t names = 0;
      for (const TensorEntry& t : h.tensors) names += t.name.size();
      if (h.name_text.stored() != names)
        return in + "the name arena holds " + std::to_string(h.name_text.stored()) + " bytes for " +
               std::to_string(names) + " bytes of tensor names";
    }
  }
  // strict forbids everything the reference reader does: a file strict
  // finds clean is one the emulated reference reads.
  if (fast && !has_errors(check_model(fast.value(), Profile::Strict))) {
    const reference::Answer a = reference::read_metadata(file, file.size());
    if (a.failure)
      return "strict finds no error, but the reference reader says " +
             std::string(reference::variant_name(a.failure->variant)) + ": " + a.failure->display;
  }
  return std::nullopt;
}

std::optional<std::string> roundtrip_fails(std::span<const std::uint8_t> file, HeaderParser& parser) {
  const Result<Model> parsed = read_model_fast(file, parser);
  if (!parsed) return std::nullopt;
  const Model& m = parsed.value();

  // Header level: canonical text parses back to the same header.
  const std::string text = canonical_header_json(m.header);
  const Result<Header> again = parser.parse(text);
  if (!again) return "canonical header does not parse: " + again.error().message;
  if (normalized(again.value()) != normalized(m.header)) return "canonical header parses to another header";

  // File level, for files the reference accepts: the data slices are in bounds.
  if (has_errors(check_model(m, Profile::Safetensors))) return std::nullopt;
  const std::uint64_t data_start = 8 + m.header_length;
  std::vector<TensorView> views;
  for (const TensorEntry& t : m.header.tensors)
    views.push_back(TensorView{t.name.str(), t.dtype, std::vector<std::uint64_t>(t.shape), file.subspan(data_start + t.begin, t.end - t.begin)});
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
    if (it == views.end() || it->dtype != t.dtype || it->shape != t.shape) return "tensor changed: " + t.name.str();
    if (!std::equal(it->data.begin(), it->data.end(), bytes.begin() + static_cast<std::ptrdiff_t>(start2 + t.begin),
                    bytes.begin() + static_cast<std::ptrdiff_t>(start2 + t.end)))
      return "tensor bytes changed: " + t.name.str();
  }
  if (back.value().header.tensors.size() != views.size()) return "tensor count changed";
  std::vector<TensorView> views2;
  for (const TensorEntry& t : back.value().header.tensors)
    views2.push_back(TensorView{t.name.str(), t.dtype, std::vector<std::uint64_t>(t.shape),
                                std::span(bytes).subspan(start2 + t.begin, t.end - t.begin)});
  const auto rewritten = serialize(views2, metadata);
  if (!rewritten || rewritten.value() != bytes) return "serializing the written file does not reproduce it";
  return std::nullopt;
}

// ---------------------------------------------------------------- quantized layers

namespace {

std::string verdict_text(const Verdict& v) {
  std::string out(consumer_name(v.consumer));
  out += " " + std::string(effect_name(v.effect)) + " " + v.error + ": " + v.message + " @";
  for (auto o : v.order) out += " " + std::to_string(o);
  return out;
}

std::string finding_text(const Finding& f) {
  std::string out = std::string(rule_name(f.rule)) + (f.severity == Severity::Error ? " error" : " warning") +
                    " at " + f.where.text() + ": " + f.message;
  for (const Verdict& v : f.verdicts) out += "\n    " + verdict_text(v);
  return out;
}

std::string analysis_text(const quant::Analysis& a) {
  std::string out = "sglang_config=" + a.sglang_config;
  for (const auto& lf : a.findings) out += "\n  file " + std::to_string(lf.file) + " " + finding_text(lf.finding);
  return out;
}

// One finding's own laws (shared by both oracles).
std::optional<std::string> finding_breaks_laws(const Finding& f) {
  if (f.where.empty() || f.message.empty()) return "a finding without a place or message: " + finding_text(f);
  if (f.severity != severity_of(f.rule, f.verdicts))
    return "a finding whose severity is not its rule's (a warning where only non-default versions act): " +
           finding_text(f);
  // At most one verdict per version of a consumer: the versions' masks do not overlap.
  ByConsumer<unsigned> covered;
  for (const Verdict& v : f.verdicts) {
    const unsigned all = (1u << consumer_info(v.consumer).versions.size()) - 1;
    const unsigned mask = v.versions == 0 ? all : v.versions;
    if ((covered[v.consumer] & mask) != 0 || (mask & ~all) != 0)
      return "a finding with two verdicts of one consumer version: " + finding_text(f);
    covered[v.consumer] |= mask;
    // An empty exception is a verdict safespec cannot settle: its message says why.
    if (v.effect == Effect::Rejects && v.message.empty())
      return "a rejecting verdict without its message (or, unknown, its reason): " + finding_text(f);
  }
  return std::nullopt;
}

bool sglang_rejects(const Finding& f) {
  const Verdict* v = f.verdict(Consumer::Sglang);
  return v && v->effect == Effect::Rejects;
}

void add_tensor(Header& h, std::string name, Dtype d, std::vector<std::uint64_t> shape) {
  std::uint64_t bits = dtype_bits(d);
  for (auto dim : shape) bits *= dim;  // small fixed shapes, or a marker of at most 1 MiB
  const std::uint64_t begin = h.tensors.empty() ? 0 : h.tensors.back().end;
  h.tensors.push_back(TensorEntry{std::move(name), d, std::move(shape), begin, begin + bits / 8});
}

// The format a marker declares, if it is an object with a string "format".
std::string declared_format(const py::Value& marker) {
  if (!quant::is_dict(marker)) return "";
  const py::Value* f = quant::get(marker, "format");
  const auto* s = f ? std::get_if<std::string>(&f->data) : nullptr;
  return s ? *s : "";
}

struct MarkerCase {
  std::string prefix;                  // the layer the checkpoint's tensors belong to
  std::string format;                  // whose layout they have
  std::optional<std::string> tensor;   // bytes of prefix.comfy_quant
  std::optional<std::string> qmeta;    // __metadata__["_quantization_metadata"]
};

std::optional<std::string> run_marker_case(const MarkerCase& c) {
  Model m;
  // A plausible layer of the declared format (its table row's typical tensors
  // at their example shapes); fp8's for a format no consumer knows.
  const quant::FormatSpec* f = quant::find_format(c.format);
  for (const quant::FormatTensor& t : (f ? *f : quant::format_spec(quant::QuantFormat::Fp8E4m3)).tensors)
    if (t.typical)
      add_tensor(m.header, c.prefix + "." + std::string(t.suffix), t.dtype,
                 std::vector<std::uint64_t>(t.example, t.example + t.rank));
  add_tensor(m.header, "norm.weight", Dtype::BF16, {64});
  std::vector<quant::MarkerBytes> markers;
  if (c.tensor) {
    const std::string name = c.prefix + std::string(quant::kMarkerSuffix);
    add_tensor(m.header, name, Dtype::U8, {c.tensor->size()});
    markers.push_back(quant::MarkerBytes{name, c.tensor->size() <= kMaxMarkerReadBytes, *c.tensor});
  }
  if (c.qmeta) {
    m.header.metadata_state = MetadataState::Present;
    m.header.metadata = {{"_quantization_metadata", *c.qmeta}, {"format", "pt"}};
  }
  m.header_length = 8;
  m.file_size = 16 + m.header.tensors.back().end;
  const quant::CheckpointFile file{"marker.safetensors", &m, std::move(markers)};
  return analysis_breaks_laws(std::span(&file, 1));
}

std::string oracle_outcome_text(const Outcome& o) {
  std::string out = o.loads ? "loads" : "rejects (" + o.error + ": " + o.message + ")";
  if (!o.config.empty()) out += " config " + o.config;
  for (RuleId r : o.mis_loads) out += " misloads:" + std::string(rule_name(r));
  for (RuleId r : o.warns) out += " warns:" + std::string(rule_name(r));
  return out;
}

}  // namespace

std::optional<std::string> analysis_breaks_laws(std::span<const quant::CheckpointFile> files) {
  try {
    const quant::Analysis a = quant::analyze(files);
    const quant::Analysis b = quant::analyze(files);
    const std::string text = analysis_text(a);
    if (text != analysis_text(b)) return "analysis is not deterministic:\n" + text + "\nthen\n" + analysis_text(b);
    bool sg_rejects = false;
    for (const auto& lf : a.findings) {
      if (!is_quant_rule(lf.finding.rule)) return "a finding outside CQ-/NUM-: " + finding_text(lf.finding);
      if (lf.file >= files.size()) return "a finding in file " + std::to_string(lf.file) + " of " + std::to_string(files.size());
      if (auto why = finding_breaks_laws(lf.finding)) return why;
      sg_rejects = sg_rejects || sglang_rejects(lf.finding);
    }
    if (sg_rejects != a.sglang_config.empty())
      return "sglang_config must be set exactly when sglang rejects nothing:\n" + text;
    return std::nullopt;
  } catch (const std::exception& e) {
    return std::string("analysis threw: ") + e.what();
  } catch (...) {
    return "analysis threw a non-standard exception";
  }
}

std::optional<std::string> marker_analysis_fails(std::span<const std::uint8_t> bytes) {
  const std::string text(bytes.begin(), bytes.end());
  constexpr std::string_view prefix = "blk.0";
  std::string format;
  if (auto v = py::loads(text, py::LoadLimits{kMaxMarkerReadBytes, kPythonJsonDepth})) format = declared_format(v.value());
  // (a) the marker tensor.
  if (auto why = run_marker_case({std::string(prefix), format, text, std::nullopt})) return "(a) marker tensor: " + *why;
  if (first_invalid_utf8(text)) return std::nullopt;
  // (b) the whole _quantization_metadata: the checkpoint's layer is its first
  // layer entry, with that entry's format's layout.
  MarkerCase whole{std::string(prefix), "", std::nullopt, text};
  if (auto v = py::loads_str(text, py::LoadLimits{kMaxMarkerReadBytes, kPythonJsonDepth}); v && quant::is_dict(v.value())) {
    const py::Value* layers = quant::get(v.value(), "layers");
    if (layers && quant::is_dict(*layers)) {
      const auto& items = std::get<py::Dict>(layers->data).items;
      const auto* name = items.empty() ? nullptr : std::get_if<std::string>(&items.front().key.data);
      if (name) {
        whole.prefix = *name;
        whole.format = declared_format(items.front().value);
      }
    }
  }
  if (auto why = run_marker_case(whole)) return "(b) _quantization_metadata: " + *why;
  // (c) the same marker declared twice: a metadata layer entry and the tensor.
  const std::string wrapped = R"({"format_version": "1.0", "layers": {")" + std::string(prefix) + R"(": )" + text + "}}";
  if (auto why = run_marker_case({std::string(prefix), format, text, wrapped})) return "(c) metadata and tensor: " + *why;
  return std::nullopt;
}

std::string describe_report(const FileReport& r) {
  std::string out = r.path + (r.io_error ? " io_error " + *r.io_error : "") + (r.judged ? " judged" : " unjudged");
  for (Consumer c : kConsumers) out += "\n  " + std::string(consumer_name(c)) + ": " + oracle_outcome_text(r.consumers[c]);
  for (const Finding& f : r.findings) out += "\n  " + finding_text(f);
  return out;
}

std::optional<std::string> profiles_disagree(std::span<const std::uint8_t> file, HeaderParser& parser) {
  const MemoryFile input{"fuzz.safetensors", file};
  std::vector<FileReport> views;
  try {
    for (Profile p : kProfiles) {
      auto reports = check_memory(std::span(&input, 1), p, parser);
      if (reports.size() != 1) return "check_memory gave " + std::to_string(reports.size()) + " reports for one file";
      views.push_back(std::move(reports.front()));
    }
    auto again = check_memory(std::span(&input, 1), Profile::Strict, parser);
    if (again.size() != 1 || describe_report(again.front()) != describe_report(views.front()))
      return "strict check is not deterministic:\n" + describe_report(views.front());
  } catch (const std::exception& e) {
    return std::string("check_memory threw: ") + e.what();
  } catch (...) {
    return "check_memory threw a non-standard exception";
  }
  const FileReport& strict = views.front();
  const std::string strict_text = describe_report(strict);
  if (!strict.judged) return "the strict report was not judged:\n" + strict_text;
  for (const Finding& f : strict.findings) {
    if (auto why = finding_breaks_laws(f)) return "strict: " + *why;
    // A default version's rejection is an error; other versions' alone a warning.
    const bool rejected = std::any_of(f.verdicts.begin(), f.verdicts.end(), [](const Verdict& v) {
      return v.effect == Effect::Rejects && v.holds_for(consumer_info(v.consumer).default_version);
    });
    if (rejected && f.severity != Severity::Error)
      return "a finding a consumer's default version rejects is a warning under strict:\n" + strict_text;
  }
  // Each consumer refuses exactly when a strict finding carries its
  // rejection, and its verdict is the first of them in its order.
  for (Consumer c : kConsumers) {
    const Verdict* first = nullptr;
    for (const Finding& f : strict.findings)
      if (const Verdict* v = f.verdict(c); v && v->effect == Effect::Rejects && (!first || v->order < first->order))
        first = v;
    const Outcome& o = strict.consumers[c];
    // An empty exception is an unknown: the outcome says why instead.
    const std::string& said = first && first->error.empty() ? o.unknown : o.message;
    if (o.loads != (first == nullptr) || (first && (o.error != first->error || said != first->message)))
      return std::string(consumer_name(c)) + "'s outcome is not its first rejection:\n" + strict_text;
  }
  for (std::size_t i = 1; i < views.size(); ++i) {
    const FileReport& view = views[i];
    const std::string name(profile_name(kProfiles[i]));
    if (!view.judged) return name + " report was not judged:\n" + describe_report(view);
    for (Consumer c : kConsumers)
      if (oracle_outcome_text(view.consumers[c]) != oracle_outcome_text(strict.consumers[c]))
        return "consumer outcomes differ between strict and " + name + ":\n" + strict_text + "\n" + describe_report(view);
    const Consumer consumer = *kProfiles[i].consumer();
    const Outcome& outcome = view.consumers[consumer];
    if (view.ok() != outcome.loads)
      return name + " profile: ok() is " + (view.ok() ? "true" : "false") + " but the consumer " +
             (outcome.loads ? "loads" : "rejects") + ":\n" + describe_report(view);
    // The view's findings as (rule, where, severity), against strict's.
    using Key = std::tuple<RuleId, std::string, Severity>;
    std::map<Key, int> expected;
    std::map<Key, int> shown;
    for (const Finding& f : view.findings) ++shown[Key{f.rule, f.where.text(), f.severity}];
    if (consumer == Consumer::Safetensors) {
      for (const Finding& f : strict.findings) ++expected[Key{f.rule, f.where.text(), f.severity}];
      for (const auto& [k, n] : shown)
        if (expected[k] < n) return "safetensors profile shows a finding strict lacks:\n" + describe_report(view);
      continue;
    }
    for (const Finding& f : strict.findings)
      if (const Verdict* v = f.verdict(consumer))
        ++expected[Key{f.rule, f.where.text(), v->effect == Effect::Rejects ? Severity::Error : Severity::Warning}];
    if (shown != expected)
      return name + " profile's findings are not strict's findings that carry its verdict:\n" + strict_text + "\n" +
             describe_report(view);
    if (!outcome.loads && (view.findings.empty() || view.findings.front().message != outcome.message))
      return name + " profile's first finding is not the consumer's verdict:\n" + describe_report(view);
  }
  return std::nullopt;
}

}  // namespace safespec
