#include "src/commands/checkpoint_plan.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <string_view>
#include <utility>


namespace safespec {

namespace {

// "dir/model-00001-of-00003.safetensors" -> ("dir/model", "00003"): the
// files of one shard series.
std::optional<std::pair<std::string, std::string>> shard_series(const std::string& path) {
  const std::filesystem::path p(path);
  const std::string name = p.filename().string();
  constexpr std::string_view kSuffix = ".safetensors";
  // NAME-ddddd-of-ddddd.safetensors
  if (name.size() < kSuffix.size() + 15 || !name.ends_with(kSuffix)) return std::nullopt;
  const std::string stem = name.substr(0, name.size() - kSuffix.size());
  const std::size_t of = stem.size() - 9;  // "-of-ddddd" is 9 bytes
  const auto digits = [&](std::size_t at) {
    return std::all_of(stem.begin() + static_cast<std::ptrdiff_t>(at), stem.begin() + static_cast<std::ptrdiff_t>(at + 5),
                       [](char c) { return c >= '0' && c <= '9'; });
  };
  if (stem.compare(of, 4, "-of-") != 0 || !digits(of + 4) || stem[of - 6] != '-' || !digits(of - 5)) return std::nullopt;
  return std::pair{(p.parent_path() / stem.substr(0, of - 6)).string(), stem.substr(of + 4)};
}

}  // namespace

CheckpointPlan plan_checkpoints(const std::vector<PathEntry>& entries, bool separate, bool together) {
  CheckpointPlan plan;
  plan.of_entry.resize(entries.size(), 0);
  const auto add = [&plan](CheckpointKind kind, std::string name) {
    plan.checkpoints.push_back(PlannedCheckpoint{kind, std::move(name)});
    return plan.checkpoints.size() - 1;
  };
  std::map<std::pair<std::string, std::string>, std::size_t> series;
  std::optional<std::size_t> all;  // together: the one checkpoint
  for (std::size_t e = 0; e < entries.size(); ++e) {
    const PathEntry& entry = entries[e];
    if (!entry.index.empty()) {
      plan.of_entry[e] = add(CheckpointKind::Index, entry.index);
      continue;
    }
    for (const std::string& file : entry.files) {
      if (together) {
        if (!all) all = add(CheckpointKind::Together, "");
        plan.of_file.push_back(*all);
        continue;
      }
      const auto key = separate ? std::nullopt : shard_series(file);
      if (!key) {
        plan.of_file.push_back(add(CheckpointKind::Single, file));
        continue;
      }
      const auto found = series.find(*key);
      if (found != series.end()) {
        plan.of_file.push_back(found->second);
        continue;
      }
      const std::size_t c = add(CheckpointKind::Series, key->first + "-*-of-" + key->second + ".safetensors");
      series.emplace(*key, c);
      plan.of_file.push_back(c);
    }
  }
  return plan;
}

}  // namespace safespec
