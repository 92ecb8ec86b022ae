// From findings to what each consumer does: the container verdicts every
// reader of the file inherits from the reference reader, each consumer's
// outcome (its first rejection in its own order), and a profile's view of a
// report (each consumer's verdict as a profile).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "spec/finding.hpp"
#include "spec/rule_catalogue.hpp"
#include "spec/report.hpp"

namespace safespec {

// Adds to every reference-rule error finding of a file the verdicts of
// safetensors (its error variant) and of sglang, ComfyUI and comfy-kitchen,
// which open the file with the reference reader before anything else
// (S1 safe_open, C1). `file` is the file's position in its checkpoint.
// `reference` is the reference reader's answer on the file: its failure goes
// on the first finding of the same error variant (or on a finding made for
// it when no rule of safespec's names it), with its exact Display text; the
// findings after it carry no consumer verdict, since the reference stops at
// its first error. When the reference accepts, no finding stops a consumer.
void attach_container_verdicts(Findings& findings, std::size_t file, const reference::Answer* reference);

// Fills r.consumers: safetensors from r's own findings; sglang, comfyui and
// kitchen from every finding of the checkpoint (all its files' reports).
// sglang_config, assumptions: quant::Analysis's.
// stoppers: rejections that belong to no judged file (a file of the
// checkpoint that does not exist: FileNotFoundError at its place).
void judge(std::vector<FileReport*> checkpoint, const std::string& sglang_config,
           const std::vector<quant::Assumption>& assumptions = {}, const std::vector<Verdict>& stoppers = {});

// The profile's view: for strict, the report as is; for a consumer profile,
// only the findings that consumer acts on, in its order, each with that
// consumer's message and with severity error exactly when it rejects.
void apply_profile(FileReport& r, Profile p);

}  // namespace safespec
