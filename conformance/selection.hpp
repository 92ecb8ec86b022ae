// Which suite files a `conformance run` runs and how impldef_ files count:
// --only / --exclude (rule ids, globs, groups), --rerun-failed (the files a
// previous --json did not agree on) and --impldef. A parser maintainer whose
// parser reads only the container runs `--only container`.
#pragma once

#include <array>
#include <filesystem>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "conformance/manifest.hpp"
#include "spec/result.hpp"

namespace safespec::conformance {

// impldef_ files: the written spec leaves them open. report (the default):
// run and tabulated in their own column, never failing the run; fail: they
// count like every other file; skip: not run.
enum class ImpldefMode : unsigned char { Report, Fail, Skip };
std::string_view impldef_mode_name(ImpldefMode m);

// The groups a selector may name, from the rule catalogue's scopes and tiers:
// container (the container rules, strict-only ones and the writer's), index
// (shard indexes), quant (quantized layers), data (rules that need tensor
// values, and files the manifest marks `data`).
inline constexpr std::array<std::string_view, 4> kGroups{"container", "index", "quant", "data"};

// The groups a file tests. A file that breaks no rule is in every group:
// every implementation, whatever it reads, must accept it.
std::vector<std::string_view> case_groups(const Case& c);

struct Selection {
  std::vector<std::string> only, exclude;  // empty `only`: every file
  ImpldefMode impldef = ImpldefMode::Report;
  bool rerun = false;                      // keep only the files in `failed`
  std::set<std::string> failed;
};

// A selector is a group name, a rule id of the catalogue, or a glob (*, ?,
// [..]) over rule ids and file names; anything else is a usage error naming
// what was expected, so a mistyped rule id never selects nothing silently.
Result<Unit, std::string> check_selector(const std::string& selector);

// Whether the run keeps this file (before --impldef skip).
bool selected(const Case& c, const Selection& s);

// The files of a previous `conformance run --json` whose class is not
// "agrees"; an error says what was expected and what was found.
Result<std::set<std::string>, std::string> read_failed(const std::filesystem::path& json);

}  // namespace safespec::conformance
