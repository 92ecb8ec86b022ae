// Huge-page advice (src/io/header_memory.hpp): which ranges get it, and that a
// large header's tensor list is advised before the reader fills it. The
// advice shows as "hg" among the mapping's VmFlags in /proc/self/smaps
// whenever the kernel has transparent huge pages at all (any mode: the flag
// is set even under "never"); on a kernel without them madvise refuses, and
// the tests say so instead of passing on nothing.
#include <sys/mman.h>

#include <cstdint>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>

#include "gen/synthetic.hpp"
#include "props/catch.hpp"
#include "spec/name_index.hpp"
#include "src/io/header_memory.hpp"
#include "src/parse/plain_header.hpp"

using namespace safespec;

namespace {

constexpr std::size_t kHuge = std::size_t{2} << 20;

// The VmFlags of the mapping holding `address`, or nullopt when no mapping
// holds it (or /proc is not there).
std::optional<std::string> vm_flags(const void* address) {
  const auto at = reinterpret_cast<std::uintptr_t>(address);
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    std::uintptr_t begin = 0, end = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> begin >> dash >> end && dash == '-') {
      inside = begin <= at && at < end;
      continue;
    }
    if (inside && line.rfind("VmFlags:", 0) == 0) return line.substr(8);
  }
  return std::nullopt;
}

bool advised(const void* address) {
  const auto flags = vm_flags(address);
  return flags && flags->find(" hg") != std::string::npos;
}

// Whether this kernel takes the advice at all, tried on a mapping of our own.
bool kernel_takes_advice() {
  void* p = ::mmap(nullptr, kHuge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return false;
  const bool ok = ::madvise(p, kHuge, MADV_HUGEPAGE) == 0;
  ::munmap(p, kHuge);
  return ok;
}

}  // namespace

TEST_CASE("advise_huge_pages: only the whole 2 MiB pages inside the range", "[unit][memory]") {
  if (!kernel_takes_advice()) {
    WARN("this kernel refuses MADV_HUGEPAGE: the advice is not observable here");
    return;
  }
  // Four huge pages of our own mapping, aligned to a huge page.
  const std::size_t length = 5 * kHuge;
  void* raw = ::mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(raw != MAP_FAILED);
  auto* base = static_cast<std::uint8_t*>(raw);
  base += (kHuge - reinterpret_cast<std::uintptr_t>(base) % kHuge) % kHuge;

  SECTION("a range shorter than a huge page, or holding none whole, is left alone") {
    advise_huge_pages(base, kHuge - 1);
    advise_huge_pages(base + 1, kHuge);
    CHECK_FALSE(advised(base));
    CHECK_FALSE(advised(base + kHuge - 1));
  }
  SECTION("an unaligned range: the whole huge pages inside it, not its ends") {
    advise_huge_pages(base + 4096, 3 * kHuge);
    CHECK_FALSE(advised(base));
    CHECK(advised(base + kHuge));
    CHECK(advised(base + 3 * kHuge - 1));
    CHECK_FALSE(advised(base + 3 * kHuge));
  }
  SECTION("nothing, and a range that would wrap the address space, do nothing") {
    advise_huge_pages(nullptr, 0);
    advise_huge_pages(reinterpret_cast<const void*>(UINTPTR_MAX - 4096), 4 * kHuge);
    CHECK_FALSE(advised(base + kHuge));
  }
  ::munmap(raw, length);
}

TEST_CASE("A large header's tensor list is advised before it is filled", "[unit][memory]") {
  if (!kernel_takes_advice()) {
    WARN("this kernel refuses MADV_HUGEPAGE: the advice is not observable here");
    return;
  }
  NameIndex names;
  // 60,000 tensors: a 4 MiB list, its middle whole huge pages.
  const std::string large = gen::synthetic_checkpoint_text(60'000, 16).text;
  const auto big = parse_plain_header(large, names);
  REQUIRE(big.has_value());
  REQUIRE(big->tensors.size() == 60'000);
  const auto* middle = reinterpret_cast<const std::uint8_t*>(big->tensors.data()) +
                       big->tensors.size() * sizeof(TensorEntry) / 2;
  CHECK(advised(middle));
}
