// make_adversarial DIR: writes the committed adversarial cases and
// MANIFEST.tsv (every case, committed or not, with its expected finding) into
// DIR (corpus/adversarial). make_adversarial --generated DIR: writes the cases
// too large or too many to commit (and the FIFO and directory) into DIR, a
// build-tree folder, from the same table. The test
// adversarial.regenerates_identically compares the first with the commit.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "tools/adversarial_cases.hpp"

using namespace safespec::tools;

namespace {

constexpr const char* kManifestIntro =
    "# The adversarial corpus (docs/hardening.md), written by tools/make_adversarial.cpp.\n"
    "# origin: committed = the file beside this manifest; generated / truncation / shrinks = written at\n"
    "# test time into the build tree by `make_adversarial --generated DIR` (same code; too large or too\n"
    "# many to commit); special = a directory, a FIFO with no writer, /dev/zero. replay_adversarial\n"
    "# runs each through `safespec check` (truncation and shrinks: in-process check_paths) and requires\n"
    "# exactly: the exit status; for status 1 the first error line `rule at where: ...` with `message`\n"
    "# in it and `errors` error lines; for status 2 the I/O error containing `message`.\n";

}  // namespace

int main(int argc, char** argv) {
  const bool generated = argc == 3 && std::string(argv[1]) == "--generated";
  if (argc != 2 && !generated) {
    std::fprintf(stderr, "usage: make_adversarial DIR | make_adversarial --generated DIR\n");
    return 2;
  }
  const std::string dir = argv[argc - 1];
  std::filesystem::create_directories(dir);
  std::string manifest = std::string(kManifestIntro) + kManifestHeader + "\n";
  for (const AdversarialCase& c : adversarial_cases()) {
    manifest += manifest_line(c) + "\n";
    const bool here = generated ? c.origin != Origin::Committed : c.origin == Origin::Committed;
    if (!here || !c.write) continue;
    const std::string path = dir + "/" + c.name;
    if (c.origin != Origin::Special) std::filesystem::remove(path);
    if (!c.write(path)) {
      std::fprintf(stderr, "make_adversarial: could not write %s\n", path.c_str());
      return 1;
    }
  }
  if (!generated) std::ofstream(dir + "/MANIFEST.tsv", std::ios::binary) << manifest;
  return 0;
}
