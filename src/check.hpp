// `safespec check`: a path in, a report of all its findings out.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "spec/finding.hpp"
#include "spec/model.hpp"
#include "spec/rule_catalogue.hpp"
#include "src/fast_header.hpp"

namespace safespec {

struct FileReport {
  std::string path;
  Findings findings;
  std::optional<std::string> io_error;  // set: the file could not be read (exit 2)
  std::optional<Model> model;           // set when the header parsed

  bool ok() const;  // readable and no error findings
  // The reference reader's verdict: its error variant for the first failure
  // in its order, or empty when it accepts the file.
  std::string_view reference_verdict() const;
  // The finding behind that verdict, or nullptr when the reference accepts.
  const Finding* reference_failure() const;
};

FileReport check_safetensors(const std::string& path, Profile profile, FastHeaderParser& parser);

// A path ending in ".index.json" is a shard index: the index's own report
// first, then one per shard. Any other path gives one report.
std::vector<FileReport> check_path(const std::string& path, Profile profile, FastHeaderParser& parser);

bool is_index_path(const std::string& path);

}  // namespace safespec
