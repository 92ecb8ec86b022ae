// Rendering reports for humans (text) and machines (one JSON document).
#pragma once

#include <string>
#include <vector>

#include "spec/model.hpp"
#include "spec/rule_catalogue.hpp"
#include "src/check.hpp"

namespace safespec {

std::string render_check_text(const std::vector<FileReport>& reports, Profile profile);
std::string render_check_json(const std::vector<FileReport>& reports, Profile profile);

// One row per judged file, one column per consumer, then the exact message of
// every rejection (src/report_table.cpp).
std::string render_table(const std::vector<FileReport>& reports);

std::string render_inspect_text(const Model& m);
std::string render_inspect_json(const std::string& path, const Model& m);

std::string render_rules_text();
std::string render_rules_json();

}  // namespace safespec
