// The .npy reader and writer (src/io/npy.hpp): what the writer gives, the
// reader takes back unchanged; every hostile header is refused with its exact
// message; and `linear` gives the same output bits from an .npy input as from
// the same values in safetensors.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "props/catch.hpp"
#include "props/unit_support.hpp"
#include "src/io/npy.hpp"

using namespace safespec;
using test::Run;
namespace fs = std::filesystem;

namespace {

std::vector<std::uint8_t> file_header(std::string dict, std::uint8_t major = 1) {
  std::vector<std::uint8_t> out{0x93, 'N', 'U', 'M', 'P', 'Y', major, 0};
  const std::size_t len_bytes = major == 1 ? 2 : 4;
  for (std::size_t b = 0; b < len_bytes; ++b) out.push_back(static_cast<std::uint8_t>(dict.size() >> (8 * b)));
  out.insert(out.end(), dict.begin(), dict.end());
  return out;
}

std::string refusal(const std::vector<std::uint8_t>& bytes) {
  auto r = parse_npy(bytes);
  REQUIRE(!r.ok());
  return r.error();
}

std::vector<std::uint8_t> file_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

TEST_CASE("npy: the writer's files read back unchanged, in numpy's layout", "[npy]") {
  const NpyArray a{NpyType::F16, {2, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}};
  auto bytes = serialize_npy(a);
  REQUIRE(bytes.ok());
  const std::vector<std::uint8_t>& b = bytes.value();
  CHECK(b.size() == 128 + 12);  // numpy pads the header so the data starts at a multiple of 64
  const std::string header(b.begin() + 10, b.begin() + 128);
  CHECK(header.starts_with("{'descr': '<f2', 'fortran_order': False, 'shape': (2, 3), }    "));
  CHECK(header.ends_with(" \n"));
  auto back = parse_npy(b);
  REQUIRE(back.ok());
  CHECK(back.value().type == NpyType::F16);
  CHECK(back.value().shape == a.shape);
  CHECK(back.value().data == a.data);
  for (const auto& shape : {std::vector<std::uint64_t>{}, {4}, {1, 1, 2}, {0, 5}}) {
    NpyArray v{NpyType::F32, shape, {}};
    std::uint64_t n = 1;
    for (auto d : shape) n *= d;
    v.data.assign(4 * n, 0x3f);
    auto s = serialize_npy(v);
    REQUIRE(s.ok());
    auto r = parse_npy(s.value());
    REQUIRE(r.ok());
    CHECK(r.value().shape == shape);
    CHECK(r.value().data == v.data);
  }
  // numpy's other spellings: version 2.0, double quotes, keys in any order, no trailing comma.
  auto v2 = file_header("{\"shape\": (1,), \"fortran_order\": False, \"descr\": \"<u2\"}\n", 2);
  v2.insert(v2.end(), {0x80, 0x3f});
  auto r = parse_npy(v2);
  REQUIRE(r.ok());
  CHECK(r.value().type == NpyType::U16);
  CHECK(r.value().shape == std::vector<std::uint64_t>{1});
}

TEST_CASE("npy: hostile headers are refused, each with what was expected and found", "[npy]") {
  const std::string ok = "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }\n";
  auto good = file_header(ok);
  good.insert(good.end(), 4, 0);
  REQUIRE(parse_npy(good).ok());
  // Truncated: in the magic, in the header, in the data.
  CHECK(refusal({good.begin(), good.begin() + 5}) == "expected an .npy file (starting with \\x93NUMPY), found another file");
  CHECK(refusal({good.begin(), good.begin() + 30}) == "expected a header of 58 bytes, found 20 bytes in the file");
  CHECK(refusal({good.begin(), good.end() - 1}) == "expected 4 data bytes for the shape, found 3");
  auto bad_magic = good;
  bad_magic[1] = 'M';
  CHECK(refusal(bad_magic) == "expected an .npy file (starting with \\x93NUMPY), found another file");
  auto v3 = good;
  v3[6] = 3;
  CHECK(refusal(v3) == "expected format version 1.0 or 2.0, found 3.0");
  CHECK(refusal(file_header("{'descr': '<f4', 'fortran_order': True, 'shape': (1,), }\n")) ==
        "header: expected C order ('fortran_order': False), found True");
  CHECK(refusal(file_header("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 2), }\n")) ==
        "expected a shape whose byte size fits 64 bits, found a larger one");
  CHECK(refusal(file_header("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }\n")) ==
        "header: 'shape': expected a dimension below 2^64, found '999999999999' at header byte 51");
  CHECK(refusal(file_header("{'descr': '<f4', 'fortran_order': False, 'shape': (1000000, 1000000), }\n")) ==
        "expected 4000000000000 data bytes for the shape, found 0");
  CHECK(refusal(file_header("{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }\n")) ==
        "header: 'descr': expected '<f4', '<f2' or '<u2' (little-endian float32, float16, bf16 bit patterns), found '>f4'");
  CHECK(refusal(file_header("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (1,), }\n")) ==
        "header: expected each key once, found 'descr' twice");
  CHECK(refusal(file_header("{'descr': '<f4', 'fortran_order': False, 'shape': (1), }\n")) ==
        "header: 'shape': expected ',' after the first dimension, found '), }\n' at header byte 52");
  CHECK(refusal(file_header("{'descr': '<f4', 'fortran_order': False}\n")) ==
        "header: expected the keys 'descr', 'fortran_order' and 'shape', found fewer");
  CHECK(refusal(file_header("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1}\n")) ==
        "header: expected the keys 'descr', 'fortran_order' and 'shape', found 'x'");
  CHECK(refusal(file_header(ok.substr(0, ok.size() - 1))) == "expected the header to end with a newline");
  CHECK(refusal(file_header(std::string(10001, ' '))) ==
        "expected a header of at most 10000 bytes (numpy's bound), found 10001");
}

TEST_CASE("npy: linear reads x from .npy and writes y to .npy with the same bits as safetensors", "[npy]") {
  const test::CliScratch s("safespec_npy");
  const fs::path v = test::vectors_dir() / "g32_c256_bf16_codebook_bias";
  const std::string layer = test::shell_word((v / "layer.safetensors").string());
  // x as '<u2' bf16 patterns: the bytes of the safetensors tensor under an .npy header.
  REQUIRE(s.run("linear " + layer + " --layer lin --input " + test::shell_word((v / "x.safetensors").string()) +
                " --out " + test::shell_word((s.dir / "y.safetensors").string()))
              .code == 0);
  const std::vector<std::uint8_t> st = file_bytes(v / "x.safetensors");
  // The x tensor is the file's last 3 × 256 × 2 bytes (the writer puts data last).
  NpyArray xa{NpyType::U16, {3, 256}, {st.end() - 3 * 256 * 2, st.end()}};
  REQUIRE(write_npy_file((s.dir / "x.npy").string(), xa).ok());
  // The CLI runs in the source tree: paths are absolute.
  const auto at = [&](const char* name) { return test::shell_word((s.dir / name).string()); };
  Run r = s.run("linear " + layer + " --layer lin --input " + at("x.npy") + " --out " + at("y.npy"));
  CHECK(r.code == 2);
  CHECK(r.err ==
        "safespec: " + (s.dir / "x.npy").string() + ": '<u2' holds 16-bit patterns: .npy has no bfloat16; pass --input-dtype BF16 to read them as "
        "bf16\n");
  r = s.run("linear " + layer + " --layer lin --input " + at("x.npy") + " --input-dtype BF16 --out " + at("y.npy"));
  REQUIRE(r.code == 0);
  auto y = read_npy_file((s.dir / "y.npy").string());
  REQUIRE(y.ok());
  CHECK(y.value().type == NpyType::U16);
  CHECK(y.value().shape == std::vector<std::uint64_t>{3, 8});
  const std::vector<std::uint8_t> ys = file_bytes(s.dir / "y.safetensors");
  CHECK(y.value().data == std::vector<std::uint8_t>(ys.end() - 3 * 8 * 2, ys.end()));
  // dequant to .npy: F32 as '<f4', the same bytes as its safetensors output.
  REQUIRE(s.run("dequant " + layer + " --layer lin --out " + at("w.safetensors")).code == 0);
  REQUIRE(s.run("dequant " + layer + " --layer lin --out " + at("w.npy")).code == 0);
  auto w = read_npy_file((s.dir / "w.npy").string());
  REQUIRE(w.ok());
  CHECK(w.value().type == NpyType::F32);
  CHECK(w.value().shape == std::vector<std::uint64_t>{8, 256});
  const std::vector<std::uint8_t> ws = file_bytes(s.dir / "w.safetensors");
  CHECK(w.value().data == std::vector<std::uint8_t>(ws.end() - 8 * 256 * 4, ws.end()));
}
