#include "spec/checkpoint_report.hpp"

#include <algorithm>
#include <iterator>
#include <utility>

#include "spec/quote.hpp"

namespace safespec {

namespace {

template <class T>
void add_missing(std::vector<T>& into, const std::vector<T>& from) {
  for (const T& x : from)
    if (std::find(into.begin(), into.end(), x) == into.end()) into.push_back(x);
}

// A consumer that reads each file alone, over the whole checkpoint: what a
// loop over the files in order meets first.
Outcome each_file_outcome(Consumer c, std::size_t version, std::span<FileReport* const> files,
                          std::span<const std::string> absent) {
  Outcome all;
  for (const FileReport* f : files) {
    if (!f->judged) {
      Outcome o;
      o.unknown = "file " + quote_name(f->path) + " could not be read" + (f->io_error ? ": " + *f->io_error : "");
      o.file = f->path;
      return o;
    }
    const Outcome& o = f->versions[c][version];
    if (!o.loads || !o.unknown.empty()) {
      Outcome first = o;
      first.file = f->path;
      if (!first.unknown.empty()) first.unknown = "file " + quote_name(f->path) + ": " + first.unknown;
      return first;
    }
    add_missing(all.mis_loads, o.mis_loads);
    add_missing(all.warns, o.warns);
    add_missing(all.unchecked, o.unchecked);
  }
  if (!absent.empty()) {
    all = Outcome{};
    all.unknown = "file " + quote_name(absent.front()) + " does not exist";
    all.file = absent.front();
  }
  return all;
}

}  // namespace

void speak_for_checkpoint(FileReport& speaker, std::span<FileReport* const> files, std::span<const std::string> absent) {
  speaker.files.clear();
  for (FileReport* f : files) {
    speaker.files.push_back(f->path);
    f->checkpoint = speaker.path;
    // Stable: the checkpoint's findings keep their order, after the speaker's own.
    auto at_checkpoint = [](const Finding& x) { return x.where.kind == PlaceKind::Checkpoint; };
    const auto moved = std::stable_partition(f->findings.begin(), f->findings.end(),
                                             [&](const Finding& x) { return !at_checkpoint(x); });
    std::move(moved, f->findings.end(), std::back_inserter(speaker.findings));
    f->findings.erase(moved, f->findings.end());
  }
  const auto judged = std::find_if(files.begin(), files.end(), [](const FileReport* f) { return f->judged; });
  if (judged == files.end()) return;  // no file was read: nothing to say for the checkpoint
  speaker.chosen = (*judged)->chosen;
  for (Consumer c : kConsumers) {
    const std::size_t n = consumer_info(c).versions.size();
    speaker.versions[c].clear();
    for (std::size_t v = 0; v < n; ++v)
      speaker.versions[c].push_back(judges_each_file(c) ? each_file_outcome(c, v, files, absent)
                                                         : (*judged)->versions[c][v]);
    speaker.consumers[c] = speaker.versions[c][speaker.chosen[c]];
  }
  speaker.judged = true;
}

}  // namespace safespec
