// What sglang's real code did on every checkpoint of corpus/conformance and
// corpus/examples/quant (corpus/sglang_answers/answers.jsonl, from
// shared/reference/sglang-answers/), taking every marked layer to be Linear:
// `safespec check --profile sglang --all-linear` must give the same loads,
// exception class, message and config. The answers were made with paths
// relative to the set's directory, so the check runs there; a multi-file
// answer lists the checkpoint's files, read as one checkpoint. Files the
// suite has since replaced are kept in corpus/sglang_answers/retired/.
#include <filesystem>
#include <fstream>

#include "props/catch.hpp"
#include "spec/python/python_json.hpp"
#include "src/commands/check.hpp"

namespace {

using namespace safespec;
namespace fs = std::filesystem;

const fs::path kCorpus = fs::path(SAFESPEC_SGLANG_ANSWERS_DIR).parent_path();

const py::Value* member(const py::Value& v, std::string_view key) {
  for (const py::DictEntry& e : std::get<py::Dict>(v.data).items)
    if (const auto* k = std::get_if<std::string>(&e.key.data); k && *k == key) return &e.value;
  return nullptr;
}

std::string str_or_null(const py::Value* v) {
  const auto* s = v ? std::get_if<std::string>(&v->data) : nullptr;
  return s ? *s : "null";
}

struct Cwd {
  fs::path saved = fs::current_path();
  explicit Cwd(const fs::path& p) { fs::current_path(p); }
  ~Cwd() { fs::current_path(saved); }
};

}  // namespace

TEST_CASE("sglang's own answers on the conformance suite and the quant examples, every layer Linear", "[sglang]") {
  std::ifstream in(fs::path(SAFESPEC_SGLANG_ANSWERS_DIR) / "answers.jsonl");
  REQUIRE(in);
  std::string line;
  std::size_t n = 0;
  HeaderParser parser;
  CheckOptions options{Profile::Sglang, false, false, FailOn::Error, {}};
  options.checkpoint = true;  // the answer's files are one checkpoint, as sglang read them
  options.kinds.all_linear = true;
  while (std::getline(in, line)) {
    ++n;
    auto parsed = py::loads(line);
    REQUIRE(parsed);
    const py::Value& d = parsed.value();
    const std::string set = str_or_null(member(d, "set"));
    std::vector<std::string> files;
    for (const py::Value& f : std::get<py::List>(member(d, "files")->data).items)
      files.push_back(std::get<std::string>(f.data));
    const py::Value& exp = *member(d, "sglang");
    const bool loads = std::get<bool>(member(exp, "loads")->data);
    INFO(set << " " << files.front());
    // "retired": a file the suite no longer generates (it now draws another
    // checkpoint under that name), kept with the answer sglang gave on it.
    const Cwd cwd(set == "retired"       ? fs::path(SAFESPEC_SGLANG_ANSWERS_DIR) / "retired"
                  : set == "conformance" ? kCorpus / "conformance"
                                         : kCorpus / "examples/quant");
    const std::vector<FileReport> reports = check_paths(files, options, parser);
    const FileReport* judged = nullptr;
    for (const FileReport& r : reports)
      if (r.judged) {
        judged = &r;
        break;
      }
    REQUIRE(judged);
    const Outcome& o = judged->consumers[Consumer::Sglang];
    CHECK(o.assumes.empty());
    CHECK(o.loads == loads);
    if (loads) {
      const std::string config = str_or_null(member(exp, "config"));
      CHECK((o.config == "None" ? std::string("null") : o.config) == config);
      continue;
    }
    const std::string error = str_or_null(member(exp, "error"));
    const std::string message = str_or_null(member(exp, "message"));
    // Ties (X13) and Python set order (S7): any of the answers safespec lists.
    bool any = o.error == error && o.message == message;
    for (const auto& [e, m] : o.alternatives) any = any || (e == error && m == message);
    INFO("got " << o.error << ": " << o.message);
    INFO("expected " << error << ": " << message);
    CHECK(any);
  }
  CHECK(n == 657);
}
