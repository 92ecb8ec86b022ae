#include <algorithm>
#include <bit>
#include <span>

#include "conformance/suite_parts.hpp"
#include "spec/finding_sink.hpp"
#include "spec/rule_catalogue.hpp"
#include "src/commands/check.hpp"

namespace safespec::conformance::detail {

std::vector<RuleId> strict_rules(const std::vector<std::pair<std::string, Bytes>>& files) {
  std::vector<MemoryFile> memory;
  for (const auto& [name, bytes] : files) memory.push_back(MemoryFile{name, bytes});
  HeaderParser parser;
  std::vector<RuleId> out;
  for (const FileReport& r : check_memory(memory, Profile::Strict, parser))
    for (const Finding& f : r.findings) out.push_back(f.rule);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<RuleId> strict_rules(const Bytes& file) { return strict_rules({{"model.safetensors", file}}); }

std::vector<RuleId> default_rules(const Bytes& file) {
  const MemoryFile memory{"model.safetensors", file};
  HeaderParser parser;
  std::vector<RuleId> out;
  for (const FileReport& r : check_memory(std::span(&memory, 1), Profile::Strict, parser))
    for (const Finding& f : r.findings)
      if (!only_other_versions(f.verdicts)) out.push_back(f.rule);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::uint64_t key_of(std::string_view part, std::uint64_t item, std::uint64_t s, std::uint64_t attempt) {
  // FNV-1a over the part name and the three numbers: fixed, compiler-independent.
  std::uint64_t h = 0xcbf29ce484222325ull;
  const auto mix = [&h](std::uint64_t byte) {
    h ^= byte & 0xFF;
    h *= 0x100000001b3ull;
  };
  for (char c : part) mix(static_cast<unsigned char>(c));
  for (std::uint64_t v : {item, s, attempt})
    for (int i = 0; i < 8; ++i) mix(v >> (8 * i));
  return h;
}

Bytes with_length(std::uint64_t n, std::string_view header, const Bytes& data) {
  Bytes out;
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<std::uint8_t>(n >> (8 * i)));
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

Bytes with_header(std::string_view header, const Bytes& data) { return with_length(header.size(), header, data); }

Bytes zeros(std::size_t n) { return Bytes(n, 0); }

Bytes f32_bytes(const std::vector<float>& values) {
  Bytes out;
  for (float v : values) {
    const auto bits = std::bit_cast<std::uint32_t>(v);
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::uint8_t>(bits >> (8 * i)));
  }
  return out;
}

std::string rule_text(RuleId r) { return std::string(rule_name(r)); }

bool has_error(const std::vector<RuleId>& rules) {
  return std::any_of(rules.begin(), rules.end(), [](RuleId r) { return rule_info(r).severity == Severity::Error; });
}

}  // namespace safespec::conformance::detail
