#include "conformance/numeric_runner.hpp"

#include <stdlib.h>

#include <algorithm>
#include <cstdio>
#include <span>
#include <string_view>
#include <system_error>
#include <utility>

#include "conformance/command_template.hpp"
#include "src/commands/compare.hpp"
#include "src/commands/first_difference.hpp"
#include "src/parse/layer_io.hpp"

namespace safespec::conformance {

namespace fs = std::filesystem;

namespace {

// The scratch directory for the outputs; removed however the run ends.
struct Scratch {
  fs::path dir;
  Scratch() {
    std::string tmpl = (fs::temp_directory_path() / "safespec_numeric_XXXXXX").string();
    if (::mkdtemp(tmpl.data()) != nullptr) dir = tmpl;
  }
  ~Scratch() {
    std::error_code ec;
    if (!dir.empty()) fs::remove_all(dir, ec);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
};

enum class Grade : unsigned char { Exact, OneUlp, Beyond, NoOutput };

struct Judged {
  Grade grade = Grade::NoOutput;
  bool within = false;
  std::string line;  // after "NAME: ", without ": ok" / ": FAIL"
};

// The tensor an implementation wrote: "y", or the file's only tensor.
LayerResult<const quant::TensorRef*> output_tensor(const CheckpointReader& r) {
  if (const quant::TensorRef* y = r.find("y")) return y;
  return r.only_tensor();
}

// A message about the output file names it without the scratch directory,
// which differs on every run.
std::string without_dir(std::string message, const fs::path& dir) {
  const std::string prefix = dir.string() + "/";
  for (std::size_t at; (at = message.find(prefix)) != std::string::npos;) message.erase(at, prefix.size());
  return message;
}

Judged judge(const fs::path& expected_path, const fs::path& actual_path, const Tolerance& tolerance) {
  Judged j;
  const fs::path scratch = actual_path.parent_path();
  auto expected = CheckpointReader::open(expected_path.string());
  if (!expected) return {Grade::NoOutput, false, "expected output: " + expected.error().message};
  const quant::TensorRef* ey = expected.value()->find("y");
  if (ey == nullptr) return {Grade::NoOutput, false, "expected output: no tensor 'y' in " + expected_path.string()};
  auto actual = CheckpointReader::open(actual_path.string());
  if (!actual) return {Grade::NoOutput, false, "output: " + without_dir(actual.error().message, scratch)};
  auto ay = output_tensor(*actual.value());
  if (!ay)
    return {Grade::NoOutput, false, "output: expected a tensor 'y': " + without_dir(ay.error().message, scratch)};
  const TensorEntry& te = *ey->entry;
  const TensorEntry& ta = *ay.value()->entry;
  if (te.dtype != ta.dtype)
    return {Grade::NoOutput, false,
            "output: expected dtype " + std::string(dtype_name(te.dtype)) + ", found " +
                std::string(dtype_name(ta.dtype))};
  if (te.shape != ta.shape)
    return {Grade::NoOutput, false, "output: expected shape " + shape_text(te.shape) + ", found " + shape_text(ta.shape)};
  auto eb = expected.value()->bytes(*ey);
  if (!eb) return {Grade::NoOutput, false, "expected output: " + eb.error().message};
  auto ab = actual.value()->bytes(*ay.value());
  if (!ab) return {Grade::NoOutput, false, "output: " + without_dir(ab.error().message, scratch)};
  const TensorComparison t = compare_tensor("y", te.dtype, std::vector<std::uint64_t>(te.shape), eb.value(), ab.value(), tolerance);
  const auto& first = t.first;
  j.within = t.within;
  j.line = std::string(dtype_name(te.dtype)) + " " + shape_text(te.shape) + ": ";
  if (t.max_ulps && *t.max_ulps == 0) {
    j.grade = Grade::Exact;
    j.line += "bit-exact";
    if (first)
      j.line += " (" + std::to_string(first->differing) + "/" + std::to_string(t.count) +
                " elements differ only in a NaN payload or the sign of zero, first at " + first->position + ")";
    return j;
  }
  if (t.max_ulps && *t.max_ulps == 1) {
    j.grade = Grade::OneUlp;
    j.line += "within 1 ulp";
  } else {
    j.grade = Grade::Beyond;
    j.line += "max " + (t.max_ulps ? std::to_string(*t.max_ulps) : std::string("inf")) + " ulps, max abs err " +
              number_text(t.max_abs) + ", max rel err " + number_text(t.max_rel);
  }
  if (first)
    j.line += ": " + std::to_string(first->differing) + "/" + std::to_string(t.count) + " elements differ, first at " +
              first->position + ": expected " + first->expected + ", got " + first->actual;
  j.line += "; " + histogram_text(t);
  if (!t.within) j.line += "; " + std::to_string(t.beyond) + "/" + std::to_string(t.count) + " beyond the tolerance";
  return j;
}

std::string child_failure(const ChildResult& c, double timeout_s) {
  switch (c.end) {
    case ChildResult::End::Exited: return "exit status " + std::to_string(c.code);
    case ChildResult::End::Signaled: return "killed by " + signal_name(c.signal);
    case ChildResult::End::TimedOut: {
      char buf[40];
      std::snprintf(buf, sizeof buf, "%g", timeout_s);
      return std::string("no exit within ") + buf + " s";
    }
  }
  return "";
}

struct Vector {
  std::string name;  // in the report, and the output's file name
  fs::path path;
  std::string layer;
};

// The layer a vector's {layer} names: the file's one marker tensor
// (P.comfy_quant), so a vector written under any prefix replays; the golden
// vectors' "lin" when there is not exactly one, which the implementation
// then reports.
std::string vector_layer(const fs::path& v) {
  auto r = CheckpointReader::open((v / "layer.safetensors").string());
  if (!r) return kVectorLayer;
  constexpr std::string_view suffix = ".comfy_quant";
  std::string found;
  std::size_t markers = 0;
  for (std::string_view n : r.value()->tensor_names())
    if (n.size() > suffix.size() && n.ends_with(suffix)) {
      ++markers;
      found = std::string(n.substr(0, n.size() - suffix.size()));
    }
  return markers == 1 ? found : std::string(kVectorLayer);
}

}  // namespace

CommandOutcome run_numeric(const NumericRequest& req,
                        const std::function<void(std::size_t done, std::size_t total)>& progress) {
  auto words = split_command(req.impl);
  if (!words) return usage_error("--impl: " + words.error());
  for (const char* name : {"checkpoint", "input", "output"})
    if (!mentions(words.value(), name))
      return usage_error(std::string("--impl: expected {") + name + "} in the template, found '" + req.impl + "'");

  const std::string sem(numerics::semantics_name(req.semantics));
  const std::string expected_name = "y_" + sem + ".safetensors";
  std::error_code ec;
  const fs::path dir = fs::absolute(req.vectors_dir, ec).lexically_normal();
  const auto is_vector = [](const fs::path& v) {
    std::error_code e;
    return fs::is_regular_file(v / "layer.safetensors", e) && fs::is_regular_file(v / "x.safetensors", e);
  };
  std::vector<Vector> vectors;
  std::size_t without = 0;  // vectors with no output for this semantics
  const auto add = [&](const fs::path& v, std::string name) {
    std::error_code e;
    if (fs::is_regular_file(v / expected_name, e)) vectors.push_back({std::move(name), v, vector_layer(v)});
    else ++without;
  };
  if (is_vector(dir)) {
    // One folder as `safespec vectors` writes it, rather than a folder of them.
    const fs::path named = dir.has_filename() ? dir : dir.parent_path();
    add(dir, named.filename().string());
  } else {
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
      if (is_vector(it->path())) add(it->path(), it->path().filename().string());
  }
  if (ec) return usage_error(req.vectors_dir.string() + ": " + ec.message());
  if (vectors.empty()) {
    if (without != 0)
      return usage_error(req.vectors_dir.string() + ": expected a vector with " + expected_name + ", found " +
                         std::to_string(without) + " without (the cuda outputs need C = 256)");
    return usage_error(req.vectors_dir.string() + ": expected vector directories with layer.safetensors, x.safetensors and " +
                       expected_name + ", found none");
  }
  std::sort(vectors.begin(), vectors.end(), [](const Vector& a, const Vector& b) { return a.name < b.name; });

  const Scratch scratch;
  if (scratch.dir.empty()) return usage_error("cannot create a scratch directory in " + fs::temp_directory_path().string());
  std::vector<std::vector<std::string>> commands;
  for (const Vector& v : vectors)
    commands.push_back(substitute(words.value(), {{"checkpoint", (v.path / "layer.safetensors").string()},
                                                  {"layer", v.layer},
                                                  {"input", (v.path / "x.safetensors").string()},
                                                  {"output", (scratch.dir / (v.name + ".safetensors")).string()}}));
  auto ran = run_batch(commands, {req.jobs, req.timeout_s}, [&](std::size_t done) {
    if (progress) progress(done, vectors.size());
  });
  if (!ran) {
    CommandOutcome o = usage_error(ran.error().message);
    o.stop_signal = ran.error().signal;
    return o;
  }

  const Tolerance tolerance{req.ulps, req.atol, req.rtol};
  std::size_t grades[4] = {0, 0, 0, 0};
  bool all_within = true;
  std::string out;
  for (std::size_t i = 0; i < vectors.size(); ++i) {
    const ChildResult& c = ran.value()[i];
    Judged j;
    if (c.end == ChildResult::End::Exited && c.code == 0)
      j = judge(vectors[i].path / expected_name, scratch.dir / (vectors[i].name + ".safetensors"), tolerance);
    else
      j.line = child_failure(c, req.timeout_s);
    ++grades[static_cast<std::size_t>(j.grade)];
    all_within = all_within && j.within;
    out += vectors[i].name + ": " + j.line + (j.within ? ": ok\n" : ": FAIL\n");
  }
  out += "numeric " + sem + ": " + std::to_string(vectors.size()) + (vectors.size() == 1 ? " vector" : " vectors");
  if (without) out += " (" + std::to_string(without) + " more have no " + sem + " output)";
  out += ": " + std::to_string(grades[0]) + " bit-exact, " + std::to_string(grades[1]) + " within 1 ulp, " +
         std::to_string(grades[2]) + " further off, " + std::to_string(grades[3]) + " without a usable output; " +
         "tolerance " + std::to_string(req.ulps) + (req.ulps == 1 ? " ulp" : " ulps") +
         (req.atol != 0 || req.rtol != 0 ? " or " + number_text(req.atol) + " + " + number_text(req.rtol) + " * |expected|" : "") + ": " +
         (all_within ? "ok\n" : "FAIL\n");
  return {all_within ? 0 : 1, out, "", 0};
}

}  // namespace safespec::conformance
