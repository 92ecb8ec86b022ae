// The adversarial cases too large to commit, written into the build tree at
// test time by the same code (make_adversarial --generated DIR): a header of
// exactly 100,000,000 bytes with a million tensors, a million duplicate
// keys, a 50 MB tensor name, a 100 MB marker tensor, and a shard index naming
// 100,000 missing shards. Data sections are holes (ftruncate), so the files
// cost their headers on disk.
#include <cstdio>
#include <string>

#include "tools/adversarial_cases.hpp"
#include "tools/adversarial_support.hpp"

namespace safespec::tools {

namespace {

constexpr std::size_t kMillion = 1'000'000;

// "t0000042.ffff...":{"dtype":"U8","shape":[1],"data_offsets":[42,43]} for
// every i, the names padded with `fill` bytes.
std::string million_tensors(std::size_t fill) {
  std::string h = "{";
  h.reserve(100'000'000);
  char index[16];
  for (std::size_t i = 0; i < kMillion; ++i) {
    std::snprintf(index, sizeof index, "%07zu", i);
    if (i) h += ',';
    h += "\"t";
    h += index;
    h.append(fill, 'f');
    h += "\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[" + std::to_string(i) + "," + std::to_string(i + 1) + "]}";
  }
  h += '}';
  return h;
}

// A header of exactly 100,000,000 bytes (MAX_HEADER_SIZE, allowed by F3).
bool write_100mb_header(const std::string& path) {
  const std::size_t base = million_tensors(0).size();
  std::string h = million_tensors((100'000'000 - base) / kMillion);
  h.append(100'000'000 - h.size(), ' ');
  return write_safetensors(path, h, "", kMillion);
}

bool write_duplicates(const std::string& path) {
  std::string h = "{";
  const std::string one = entry("a", "U8", "[0]", "[0,0]");
  h.reserve(kMillion * (one.size() + 1) + 8);
  for (std::size_t i = 0; i < kMillion; ++i) (h += i ? "," : "") += one;
  h += '}';
  return write_safetensors(path, pad8(h));
}

bool write_long_name(const std::string& path) {
  std::string h = "{\"";
  h.append(50'000'000, 'n');
  h += "\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]}}";
  return write_safetensors(path, pad8(h), std::string(1, '\0'));
}

// l.comfy_quant of 100,000,000 bytes: never read (the bound is 1 MiB).
bool write_big_marker(const std::string& path) {
  const std::string h = "{" + entry("l.weight_scale", "F32", "[]", "[0,4]") + "," +
                        entry("l.weight", "F8_E4M3", "[4,64]", "[4,260]") + "," +
                        entry("l.comfy_quant", "U8", "[100000000]", "[260,100000260]") + "}";
  return write_safetensors(path, pad8(h), "", 100'000'260);
}

bool write_missing_shards(const std::string& path) {
  std::string j = "{\"metadata\":{\"total_size\":0},\"weight_map\":{";
  char line[96];
  for (std::size_t i = 0; i < 100'000; ++i) {
    std::snprintf(line, sizeof line, "%s\"w%zu\":\"model-%05zu-of-100000.safetensors\"", i ? "," : "", i, i + 1);
    j += line;
  }
  j += "}}";
  return write_bytes(path, j);
}

}  // namespace

void add_large_cases(std::vector<AdversarialCase>& out) {
  out.push_back({"header_100MB_1M_tensors.safetensors", Origin::Generated,
                 "a header of exactly 100,000,000 bytes (F3's limit) with 1,000,000 tensors", clean(),
                 write_100mb_header});
  out.push_back({"duplicate_tensor_1M.safetensors", Origin::Generated, "the tensor name 'a' 1,000,000 times (X3)",
                 fail("ST-DUPLICATE-TENSOR", "tensor 'a'", "expected each tensor name once", 1001), write_duplicates});
  out.push_back({"name_50MB.safetensors", Origin::Generated, "one tensor whose name is 50,000,000 bytes", clean(),
                 write_long_name});
  out.push_back({"marker_100MB.safetensors", Origin::Generated, "a P.comfy_quant marker tensor of 100,000,000 bytes",
                 fail("CQ-MARKER-SIZE", "tensor 'l.comfy_quant'", "at most 1048576 bytes", 2), write_big_marker});
  out.push_back({"missing_shards_100000.index.json", Origin::Generated,
                 "a shard index naming 100,000 shards, none of them present",
                 fail("ST-INDEX-SHARD-MISSING", "shard 'model-00001-of-100000.safetensors'", "No such file", 1001),
                 write_missing_shards});
}

}  // namespace safespec::tools
