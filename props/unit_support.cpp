#include "props/unit_support.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <utility>

#include "props/catch.hpp"
#include "spec/rule_catalogue.hpp"
#include "src/parse/load.hpp"

namespace safespec::test {

std::filesystem::path suite_dir() {
#ifdef SAFESPEC_CONFORMANCE_DIR
  return SAFESPEC_CONFORMANCE_DIR;
#else
  return "corpus/conformance";
#endif
}

std::string cli_path() {
#ifdef SAFESPEC_CLI
  return SAFESPEC_CLI;
#else
  return (std::filesystem::read_symlink("/proc/self/exe").parent_path().parent_path() / "safespec").string();
#endif
}

TempDir::TempDir(const std::string& tag) {
  static int counter = 0;
  dir = std::filesystem::temp_directory_path() /
        (tag + "_" + std::to_string(::getpid()) + "_" + std::to_string(++counter));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}

std::filesystem::path vectors_dir() {
#ifdef SAFESPEC_VECTORS_DIR
  return SAFESPEC_VECTORS_DIR;
#else
  return std::filesystem::path("corpus") / "vectors";
#endif
}

std::string impls_dir() {
#ifdef SAFESPEC_IMPLS_DIR
  return SAFESPEC_IMPLS_DIR;
#else
  return (std::filesystem::path(cli_path()).parent_path() / "props" / "impls").string();
#endif
}

std::size_t occurrences(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

std::string shell_word(const std::string& s) {
  std::string out = "'";
  for (const char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string CliScratch::file(const std::string& name, const Bytes& bytes) const {
  std::ofstream(dir / name, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  return (dir / name).string();
}

std::string CliScratch::text(const std::string& name, std::string_view t) const {
  std::ofstream(dir / name, std::ios::binary) << t;
  return (dir / name).string();
}

Run run_cli(const std::string& scratch, const std::string& args) {
  REQUIRE(std::filesystem::exists(cli_path()));
  const std::string err = (std::filesystem::path(scratch) / "stderr.txt").string();
  const std::string cmd = "'" + cli_path() + "' " + args + " 2>'" + err + "' </dev/null";
  INFO(cmd);
  Run r;
  FILE* p = ::popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int status = ::pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream in(err);
  r.err.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return r;
}

std::string describe(const Result<Model>& r) {
  if (r.ok()) return "ok: " + std::to_string(r.value().header.tensors.size()) + " tensors";
  return std::string(rule_name(r.error().rule)) + " | " + r.error().where.text() + " | " + r.error().message;
}

Result<Model> parse_both(const Bytes& file) {
  auto ref = read_model_reference(file);
  HeaderParser parser;
  auto fast = read_model_fast(file, parser);
  CHECK(describe(fast) == describe(ref));
  CHECK(fast == ref);
  return ref;
}

void require_error(const Bytes& file, std::string_view rule, std::string_view where, std::string_view message) {
  const auto r = parse_both(file);
  INFO(describe(r));
  REQUIRE_FALSE(r.ok());
  CHECK(std::string(rule_name(r.error().rule)) == rule);
  CHECK(r.error().where.text() == where);
  CHECK(r.error().message == message);
}

Model require_model(const Bytes& file) {
  auto r = parse_both(file);
  INFO(describe(r));
  REQUIRE(r.ok());
  return std::move(r).value();
}

std::string pad8(std::string header) {
  header.resize((header.size() + 7) / 8 * 8, ' ');
  return header;
}

}  // namespace safespec::test
