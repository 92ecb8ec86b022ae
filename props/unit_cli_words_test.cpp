// What the command line says to a user who gets it wrong: help and errors
// in words (never a raw byte), the commands named when none is given, and
// negative counts refused by name rather than wrapped to 2^64 - 1.
#include <algorithm>
#include <string>

#include "props/catch.hpp"
#include "props/unit_support.hpp"

using namespace safespec;
using namespace safespec::test;

namespace {

// A byte a terminal or grep would not show as text: a control character
// other than newline and tab.
bool has_raw_byte(const std::string& s) {
  return std::any_of(s.begin(), s.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return (u < 0x20 && c != '\n' && c != '\t') || u == 0x7f;
  });
}

constexpr const char* kCommandsLine =
    "safespec: expected a command (check, table, inspect, rules, linear, dequant, compare, conformance, vectors, "
    "diff), found ";

}  // namespace

TEST_CASE("CLI words: every command's help is text, and choices show their words", "[cli]") {
  const TempDir scratch("cli-words-help");
  for (const char* command : {"", "check", "table", "inspect", "rules", "linear", "dequant", "compare", "conformance",
                              "conformance run", "conformance numeric", "vectors", "diff"}) {
    INFO(command);
    const Run r = run_cli(scratch.dir.string(), std::string(command) + " --help");
    CHECK(r.code == 0);
    CHECK(!has_raw_byte(r.out));
  }
  CHECK(run_cli(scratch.dir.string(), "check --help").out.find("--format WORD:{text,json,sarif}") != std::string::npos);
  CHECK(run_cli(scratch.dir.string(), "conformance run --help").out.find("--impldef WORD:{report,fail,skip}") !=
        std::string::npos);
}

TEST_CASE("CLI words: a wrong choice names the right ones", "[cli]") {
  const TempDir scratch("cli-words-choice");
  const Run r = run_cli(scratch.dir.string(), "check --format xml x.safetensors");
  CHECK(r.code == 2);
  CHECK(r.err == "--format: xml not in {text,json,sarif}\nRun with --help for more information.\n");
  const Run i = run_cli(scratch.dir.string(), "conformance run --impl x --impldef sometimes");
  CHECK(i.code == 2);
  CHECK(i.err.starts_with("--impldef: sometimes not in {report,fail,skip}\n"));
}

TEST_CASE("CLI words: no command, or a word that is none, lists the commands", "[cli]") {
  const TempDir scratch("cli-words-command");
  const Run bare = run_cli(scratch.dir.string(), "");
  CHECK(bare.code == 2);
  CHECK(bare.err == std::string(kCommandsLine) + "none\nRun 'safespec --help' for what each does.\n");
  const Run wrong = run_cli(scratch.dir.string(), "frobnicate x");
  CHECK(wrong.code == 2);
  CHECK(wrong.err == std::string(kCommandsLine) + "'frobnicate'\nRun 'safespec --help' for what each does.\n");
  // A command with a mistake of its own keeps its own message.
  CHECK(run_cli(scratch.dir.string(), "check").err.starts_with("paths is required"));
}

TEST_CASE("CLI words: a negative count is refused by name", "[cli]") {
  const TempDir scratch("cli-words-count");
  const std::string out = (scratch.dir / "v").string();
  const Run m = run_cli(scratch.dir.string(), "vectors " + out + " --m -1 --n 8 --k 256");
  CHECK(m.code == 2);
  CHECK(m.err == "--m: expected a whole number (0 or more, digits only), found -1\nRun with --help for more information.\n");
  CHECK(run_cli(scratch.dir.string(), "vectors " + out + " --m 2 --n -8 --k 256").err.starts_with(
      "--n: expected a whole number (0 or more, digits only), found -8\n"));
  CHECK(run_cli(scratch.dir.string(), "vectors " + out + " --m 2 --n 8 --k 256 --seed -5").err.starts_with(
      "--seed: expected a whole number (0 or more, digits only), found -5\n"));
  CHECK(run_cli(scratch.dir.string(), "vectors " + out + " --m 2 --n 8 --k 256 --group-size 1.5").err.starts_with(
      "--group-size: expected a whole number (0 or more, digits only), found 1.5\n"));
  // Zero is a whole number; the command says why it is not a size.
  CHECK(run_cli(scratch.dir.string(), "vectors " + out + " --m 0 --n 8 --k 256").err ==
        "safespec vectors: --m: expected at least 1, found 0\n");
}
