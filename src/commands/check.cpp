#include "src/commands/check.hpp"

#include <dirent.h>
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <filesystem>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "spec/checkpoint_report.hpp"
#include "spec/finding_sink.hpp"
#include "spec/format_rules.hpp"
#include "spec/limits.hpp"
#include "spec/quant/analyze.hpp"
#include "spec/quant/order.hpp"
#include "spec/quant/render.hpp"
#include "spec/quote.hpp"
#include "src/commands/check_files.hpp"
#include "src/parse/load.hpp"
#include "src/parse/marker_reader.hpp"
#include "src/parse/model_config_file.hpp"
#include "src/parse/checkpoint_collisions.hpp"
#include "src/commands/checkpoint_plan.hpp"
#include "src/parse/name_repeats.hpp"
#include "src/io/http_range.hpp"
#include "src/io/progress.hpp"
#include "src/parse/shard_index.hpp"
#include "src/io/tensor_data.hpp"
#include "spec/verdicts.hpp"

namespace safespec {

namespace fs = std::filesystem;

namespace {

// The model from what the reference read, for a header safespec's strict
// reader refuses but the reference accepts (array-form tensor entries,
// map-form dtypes, numbers only serde_json's algorithm keeps finite).
Model model_from_reference(const LoadedFile& lf) {
  Model m{lf.file_size, lf.header_length, {}};
  const reference::HashMetadata& meta = *lf.reference.metadata;
  for (const reference::TensorInfo& t : meta.tensors)
    m.header.tensors.push_back(TensorEntry{t.name, t.dtype, t.shape, t.begin, t.end});
  if (meta.metadata) {
    m.header.metadata_state = MetadataState::Present;
    m.header.metadata = *meta.metadata;
  }
  return m;
}

void fill_findings(FileReport& report, LoadedFile lf, Profile profile) {
  report.reference = lf.reference;
  report.comfyui = lf.comfyui;
  if (lf.model) {
    report.findings = check_model(lf.model.value(), profile);
    report.model = std::move(lf.model).value();
    return;
  }
  const Error refused = lf.model.error();
  if (lf.reference.failure || !lf.reference.metadata) {
    report.findings.push_back(to_finding(refused));
    return;
  }
  // Strict keeps its refusal (it names the spelling the written spec
  // forbids); no consumer sees it, since the reference reads the file.
  Model m = model_from_reference(lf);
  if (profile == Profile::Strict) {
    Finding f = to_finding(refused);
    f.message += " (the reference reader accepts this spelling)";
    report.findings.push_back(std::move(f));
  }
  for (Finding& f : check_model(m, profile)) report.findings.push_back(std::move(f));
  report.model = std::move(m);
}

// One file's report, whatever the bytes came from (a path, or memory): its
// findings under the profile, or why it could not be read; for bytes that
// are no safetensors file at all, what they look like.
FileReport report_for(std::string name, Result<LoadedFile, IoError> loaded, Profile profile,
                      const std::function<std::string()>& hint) {
  FileReport report;
  report.path = std::move(name);
  if (!loaded) {
    report.io_error = loaded.error().message;
    return report;
  }
  fill_findings(report, std::move(loaded).value(), profile);
  if (report.model) report.signs = quant::model_signs(*report.model);
  else report.hint = hint();
  return report;
}

}  // namespace

namespace {
// URLs whose report is made, for the progress line (any thread).
std::atomic<std::uint64_t> urls_checked{0};
}  // namespace

FileReport check_safetensors(const std::string& path, Profile profile, HeaderParser& parser) {
  const auto hint = [&] { return hint_for_path(path); };
  if (!is_url(path)) return report_for(path, load_file(path, parser), profile, hint);
  // A URL's markers are read here, from the bytes and over the connection
  // that gave its header (and on this file's thread, beside the other
  // shards'), not by a second opening when the checkpoint is analysed.
  auto file = ByteFile::open(path);
  if (!file) return report_for(path, file.error(), profile, hint);
  FileReport r = report_for(path, load_file(file.value(), parser), profile, hint);
  if (r.model && r.signs && r.signs->marker)
    if (auto markers = read_markers(file.value(), *r.model)) r.markers = std::move(markers).value();
  urls_checked.fetch_add(1, std::memory_order_relaxed);
  return r;
}

bool is_index_path(const std::string& path) {
  constexpr std::string_view suffix = ".index.json";
  return path.size() >= suffix.size() && path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::vector<FileReport> check_path(const std::string& path, Profile profile, HeaderParser& parser) {
  if (is_index_path(path)) return check_shard_index(path, profile, parser);
  std::vector<FileReport> out;
  out.push_back(check_safetensors(path, profile, parser));
  return out;
}

namespace {

// Where a checkpoint's marker bytes come from: the files on disk, or memory.
using MarkerSource = std::function<Result<std::vector<quant::MarkerBytes>, IoError>(const FileReport&)>;

// A consumer that loads a file of the checkpoint gets, as a note, what was
// not checked that could change that (a rejection stands on its own).
void note_unchecked(const std::vector<FileReport*>& checkpoint, const std::vector<quant::LocatedUnchecked>& unchecked) {
  for (FileReport* r : checkpoint)
    for (Consumer c : kConsumers) {
      for (Outcome& o : r->versions[c]) {
        if (!o.loads) continue;
        for (const quant::LocatedUnchecked& u : unchecked)
          if (std::find(u.item.consumers.begin(), u.item.consumers.end(), c) != u.item.consumers.end())
            o.unchecked.push_back(u.item.what);
      }
      r->consumers[c] = r->versions[c][r->chosen[c]];
    }
}

// One checkpoint: container verdicts on every file, the quantized-layer
// analysis over the files that parsed, then each consumer's outcome.
// `missing`: files the checkpoint lists (an index's shards) that do not
// exist; they stop every Python consumer after the files that were read.
// `checkpoint`: how a checkpoint-level finding names the checkpoint (its
// index, its shard series, its file, or its files).
void check_checkpoint(std::vector<FileReport>& reports, const std::vector<std::size_t>& group, const CheckOptions& o,
                      const MarkerSource& markers_of, const std::vector<std::string>& missing = {},
                      const Place& checkpoint = Place::checkpoint("")) {
  std::vector<quant::CheckpointFile> files;
  std::vector<std::size_t> report_of;
  std::vector<Verdict> stoppers;
  const auto not_found = [&](const std::string& path, std::size_t g) {
    // safe_open (pyo3) raises FileNotFoundError with the path as given;
    // ComfyUI's own parser starts with os.path.getsize, whose OSError says
    // "[Errno 2] ..." and the path's repr.
    const std::string m = "No such file or directory: " + path;
    const std::string os = "[Errno 2] No such file or directory: " + quant::repr(path);
    for (const ConsumerInfo& c : kConsumerTable) {
      if (c.errors == ErrorStyle::RustVariant) continue;  // the reference judges each file alone
      for (std::size_t v = 0; v < c.versions.size(); ++v) {
        const bool own = own_parser(c.versions[v].reader);
        stoppers.push_back(Verdict{c.id, Effect::Rejects, "FileNotFoundError", own ? os : m,
                                   quant::order::container(g), 0, version_bit(v)});
      }
    }
  };
  // Only the first file not found can be what a consumer raises (each later
  // one sits later in every order): one set of stoppers, not one per file of
  // an index that names 100,000 absent shards. Position: the missing files
  // after the shards that exist (the order among shards of a missing one and
  // a broken one is approximated this way).
  bool stopped = false;
  for (std::size_t g = 0; g < group.size() && !stopped; ++g)
    if (const FileReport& r = reports[group[g]]; r.io_error && is_not_found(IoError{*r.io_error})) {
      not_found(r.path, g);
      stopped = true;
    }
  if (!stopped && !missing.empty()) not_found(missing[0], group.size());
  for (std::size_t g = 0; g < group.size(); ++g) {
    FileReport& r = reports[group[g]];
    attach_container_verdicts(r.findings, g, r.reference ? &*r.reference : nullptr);
    if (!r.io_error) attach_own_reader_verdicts(r.findings, g, r.comfyui, r.path, stoppers);
    if (!r.model || r.io_error) continue;
    auto markers = markers_of(r);
    if (!markers) {
      r.io_error = markers.error().message;
      continue;
    }
    files.push_back(quant::CheckpointFile{r.path, &*r.model, std::move(markers).value(), r.signs});
    report_of.push_back(group[g]);
  }
  std::unique_ptr<FileTensorData> data = o.data ? std::make_unique<FileTensorData>(files) : nullptr;
  std::optional<Progress> progress;
  if (data && o.progress) {
    progress.emplace("safespec check --data");
    progress->follow([&data, n = files.size()] {
      return fmt::format("{:.1f} MB of tensor data read from {} file{}", static_cast<double>(data->bytes_read()) / 1e6,
                         n, n == 1 ? "" : "s");
    });
  }
  std::optional<quant::ModelConfig> config;
  if (!o.config.empty()) {
    config = read_model_config_file(o.config);
    if (!config) config = quant::ModelConfig{.path = o.config, .unread = "no such file"};
  } else if (o.config_beside && !group.empty()) {
    if (auto beside = config_path_beside(reports[group.front()].path)) config = read_model_config_file(*beside);
  }
  quant::Analysis a = quant::analyze(files, data.get(), o.kinds, config ? &*config : nullptr);
  progress.reset();
  for (quant::LocatedFinding& lf : a.findings) {
    // A finding about the whole checkpoint names it, not the file it is listed under.
    Place& at = lf.finding.where;
    if (at.kind == PlaceKind::Checkpoint && at.name.empty() && at.path.empty()) at = checkpoint;
    reports[report_of[lf.file]].findings.push_back(std::move(lf.finding));
  }
  std::vector<FileReport*> judged;
  for (std::size_t i : group) {
    reports[i].chosen = o.versions;
    if (!reports[i].io_error) judged.push_back(&reports[i]);
  }
  judge(judged, a.sglang_config, a.assumptions, stoppers);
  note_unchecked(judged, a.unchecked);
  for (quant::LocatedUnchecked& u : a.unchecked) reports[report_of[u.file]].unchecked.push_back(std::move(u.item));
}

// The profile's view, then the one bound on findings (every rule family).
void finish_report(FileReport& r, Profile profile, FailOn fail_on) {
  apply_profile(r, profile);
  r.profile = profile;
  r.fail_on = fail_on;
  r.findings = bound_findings(std::move(r.findings), &r.counts);
}

Result<std::vector<quant::MarkerBytes>, IoError> markers_on_disk(const FileReport& r) {
  // Most checkpoints have no marker tensor: then the file is not opened again.
  if (!(r.signs ? r.signs->marker : has_marker_tensor(*r.model))) return std::vector<quant::MarkerBytes>{};
  if (r.markers) return *r.markers;
  auto file = ByteFile::open(r.path);
  if (!file) return file.error();
  return read_markers(file.value(), *r.model);
}

std::string join(const std::vector<std::string>& parts, std::string_view between) {
  std::string out;
  for (const std::string& p : parts) {
    if (!out.empty()) out += between;
    out += p;
  }
  return out;
}

// `reports` with made[k] placed before the report at position before[k]
// (ascending), each report moved once.
std::vector<FileReport> with_inserted(std::vector<FileReport> reports, std::vector<FileReport> made,
                                      const std::vector<std::size_t>& before) {
  std::vector<FileReport> out;
  out.reserve(reports.size() + made.size());
  std::size_t k = 0;
  for (std::size_t i = 0; i < reports.size(); ++i) {
    for (; k < made.size() && before[k] == i; ++k) out.push_back(std::move(made[k]));
    out.push_back(std::move(reports[i]));
  }
  return out;
}

}  // namespace

namespace {

// A directory given as a path: its shard index if it has one, else its
// .safetensors files (src/commands/checkpoint_plan.hpp says which are one checkpoint). Listed
// with readdir, an entry one string: std::filesystem's iterator built a path
// object per entry (its components split, seven allocations), 0.8-1.1 ms on
// one thread for a directory of 1,000 files against 0.4 ms. The
// paths are directory_iterator's: "." and ".." skipped, any kind of entry
// kept (one that is no file fails to open and says so), "DIR/NAME" with one
// separator added.
std::vector<std::string> directory_paths(const std::string& dir, bool& is_index) {
  std::vector<std::string> indexes, files;
  const std::unique_ptr<DIR, int (*)(DIR*)> d(opendir(dir.c_str()), closedir);
  if (!d) return {};
  const std::string prefix = dir.ends_with('/') ? dir : dir + '/';
  constexpr std::string_view kExtension = ".safetensors";
  // readdir ends the listing with nullptr on an error too, told apart by
  // errno: a listing cut short is no listing (the directory is then refused
  // as the path it is), never a checkpoint of the files read so far.
  for (errno = 0;; errno = 0) {
    const dirent* e = readdir(d.get());
    if (!e) {
      if (errno != 0) return {};
      break;
    }
    const std::string_view name = e->d_name;
    if (name == "." || name == "..") continue;
    std::string p = prefix;
    p += name;
    if (is_index_path(p)) indexes.push_back(std::move(p));
    // path::extension(): a name that is only the extension (".safetensors",
    // a hidden file) has none.
    else if (name.size() > kExtension.size() && name.ends_with(kExtension)) files.push_back(std::move(p));
  }
  std::sort(indexes.begin(), indexes.end());
  std::sort(files.begin(), files.end());
  is_index = !indexes.empty();
  if (is_index) return {indexes.front()};
  return files;
}

}  // namespace

std::vector<FileReport> check_paths(const std::vector<std::string>& paths, const CheckOptions& o,
                                    HeaderParser& parser) {
  // What each path is (an index, a directory's files, one file), and which
  // files are one checkpoint (plan_checkpoints); then every file that is no
  // shard of an index read and parsed at once (on o.jobs threads); then the
  // reports put together in the order of the paths.
  std::vector<PathEntry> entries;
  entries.reserve(paths.size());
  for (const std::string& path : paths) {
    if (is_index_path(path)) {
      entries.push_back(PathEntry{path, path, {}});
      continue;
    }
    std::error_code ec;
    bool is_index = false;
    std::vector<std::string> inside =
        fs::is_directory(path, ec) ? directory_paths(path, is_index) : std::vector<std::string>{};
    // A directory without a checkpoint in it is refused as the path it is.
    if (inside.empty()) entries.push_back(PathEntry{path, {}, {path}});
    else if (is_index) entries.push_back(PathEntry{path, std::move(inside.front()), {}});
    else entries.push_back(PathEntry{path, {}, std::move(inside)});
  }
  const CheckpointPlan plan = plan_checkpoints(entries, o.separate, o.checkpoint);
  // Headers read over HTTP may take seconds (round trips): a progress line,
  // until they are all read (--data has its own after).
  std::optional<Progress> remote;
  if (o.progress && std::any_of(paths.begin(), paths.end(), [](const std::string& p) { return is_url(p); })) {
    remote.emplace("safespec check");
    remote->follow([before = http_counters(), files = urls_checked.load()] {
      const HttpCounters now = http_counters();
      const std::uint64_t done = urls_checked.load() - files;
      return fmt::format("{:.1f} MB read in {} requests, {} file{} checked",
                         static_cast<double>(now.bytes - before.bytes) / 1e6, now.requests - before.requests, done,
                         done == 1 ? "" : "s");
    });
  }
  std::vector<std::size_t> file_counts;
  std::vector<std::string> loose;  // the paths' files, moved here (a directory's are a thousand strings)
  for (PathEntry& e : entries) {
    file_counts.push_back(e.files.size());
    if (loose.empty()) loose = std::move(e.files);
    else loose.insert(loose.end(), std::make_move_iterator(e.files.begin()), std::make_move_iterator(e.files.end()));
  }
  std::vector<FileReport> loaded = check_files(loose, o.profile, o.jobs, parser, {});

  std::vector<FileReport> reports;
  std::vector<std::vector<std::size_t>> groups(plan.checkpoints.size());
  std::vector<std::vector<std::string>> missing(plan.checkpoints.size());  // listed files that do not exist
  // The reports are the loaded ones in order, with each index's reports
  // where its path was. Without an index they are `loaded` itself, taken
  // whole: a report's move is a few hundred bytes of members, and moving a
  // directory's thousand reports one by one was 5% of `check` on it.
  const bool in_place = std::none_of(entries.begin(), entries.end(), [](const PathEntry& e) { return !e.index.empty(); });
  if (in_place) reports = std::move(loaded);
  else reports.reserve(loaded.size() + entries.size());  // regrowth would move every report again
  std::size_t next_loaded = 0, file = 0;
  const auto take = [&] {  // the next loaded report's place in `reports`
    if (in_place) return next_loaded++;
    reports.push_back(std::move(loaded[next_loaded++]));
    return reports.size() - 1;
  };
  for (std::size_t k = 0; k < entries.size(); ++k) {
    if (entries[k].index.empty()) {
      for (std::size_t f = 0; f < file_counts[k]; ++f) groups[plan.of_file[file++]].push_back(take());
      continue;
    }
    const std::size_t c = plan.of_entry[k];
    std::vector<FileReport> shard_reports = check_shard_index(entries[k].index, o.profile, parser, &missing[c], o.jobs);
    // The index's own report (first) is not a safetensors file.
    for (std::size_t i = 1; i < shard_reports.size(); ++i) groups[c].push_back(reports.size() + i);
    // An index's reports arrive a thousand at once: taken whole when they
    // are all there is, else after one growth. Pushed one by one into a
    // vector reserved for the loose files only, they were moved ten times
    // over as it grew (1.3 ms of `check` on 1,000 shards).
    const std::size_t after = (loaded.size() - next_loaded) + (entries.size() - k - 1);
    if (reports.empty() && after == 0) {
      reports = std::move(shard_reports);
    } else {
      reports.reserve(reports.size() + shard_reports.size() + after);
      for (FileReport& r : shard_reports) reports.push_back(std::move(r));
    }
  }
  remote.reset();
  // A checkpoint of several files speaks through a report of its own
  // (spec/checkpoint_report.hpp): its index's, or one made for a series or
  // for files given together, placed before its first file.
  std::vector<FileReport> made;
  std::vector<std::size_t> made_before;  // per made report: the position of its checkpoint's first file
  made.reserve(groups.size());
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const PlannedCheckpoint& planned = plan.checkpoints[g];
    std::vector<std::string> together;
    if (planned.kind == CheckpointKind::Together)
      for (std::size_t i : groups[g]) together.push_back(reports[i].path);
    if (planned.kind != CheckpointKind::Index && groups[g].size() > 1)
      flag_collisions(reports, groups[g], group_repeats(reports, groups[g], o.jobs));
    check_checkpoint(reports, groups[g], o, markers_on_disk, missing[g],
                     together.empty() ? Place::checkpoint(planned.name) : Place::checkpoint_of(together));
    FileReport* speaker = nullptr;
    if (planned.kind == CheckpointKind::Index) {
      if (!groups[g].empty()) speaker = &reports[groups[g].front() - 1];  // the index's report, before its shards
    } else if (groups[g].size() > 1) {
      made.emplace_back();
      made.back().path = together.empty() ? planned.name : join(together, ", ");
      made_before.push_back(groups[g].front());
      speaker = &made.back();
    }
    if (!speaker) continue;
    std::vector<FileReport*> files;
    for (std::size_t i : groups[g]) files.push_back(&reports[i]);
    speak_for_checkpoint(*speaker, files, missing[g]);
  }
  if (!made.empty()) reports = with_inserted(std::move(reports), std::move(made), made_before);
  for (FileReport& r : reports) finish_report(r, o.profile, o.fail_on);
  return reports;
}

std::vector<FileReport> check_memory(std::span<const MemoryFile> files, Profile profile, HeaderParser& parser) {
  return check_memory(files, CheckOptions{.profile = profile}, parser);
}

std::vector<FileReport> check_memory(std::span<const MemoryFile> files, const CheckOptions& options,
                                     HeaderParser& parser) {
  const Profile profile = options.profile;
  std::vector<FileReport> reports;
  std::vector<std::size_t> group;
  const NameHashesKept keep(parser, files.size() > 1);  // for flag_collisions
  for (const MemoryFile& f : files) {
    group.push_back(reports.size());
    reports.push_back(report_for(f.name, read_file_memory(f.bytes, parser), profile,
                                 [&] { return hint_for_bytes(f.bytes.first(std::min<std::size_t>(f.bytes.size(), 64))); }));
  }
  // As for the files of one checkpoint on disk.
  if (group.size() > 1) flag_collisions(reports, group, group_repeats(reports, group, options.jobs));
  const auto from_memory = [&](const FileReport& r) -> Result<std::vector<quant::MarkerBytes>, IoError> {
    for (std::size_t i = 0; i < reports.size(); ++i)
      if (&reports[i] == &r) return read_markers(files[i].bytes, *r.model);
    return IoError{"not a file of this checkpoint"};
  };
  // FileTensorData reads files by path, which these names are not.
  CheckOptions o = options;
  o.data = false;
  o.config_beside = false;  // the names are not paths: only a --config file is read
  check_checkpoint(reports, group, o, from_memory);
  for (FileReport& r : reports) finish_report(r, profile, options.fail_on);
  return reports;
}

}  // namespace safespec
