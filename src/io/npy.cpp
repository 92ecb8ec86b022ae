#include "src/io/npy.hpp"

#include <algorithm>
#include <iterator>
#include <optional>
#include <utility>

#include "spec/checked_math.hpp"
#include "spec/limits.hpp"
#include "src/io/byte_file.hpp"
#include "src/io/writer.hpp"

namespace safespec {

namespace {

constexpr std::uint8_t kMagic[] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
constexpr std::size_t kPreamble1 = 10;  // magic, version, u16 length
constexpr std::size_t kPreamble2 = 12;  // magic, version, u32 length

using Fail = std::string;

// The header is a Python dict literal; numpy writes exactly three keys. This
// reads that subset of Python literal syntax and nothing more.
struct Cursor {
  std::string_view s;
  std::size_t i = 0;

  void spaces() {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n')) ++i;
  }
  bool eat(char c) {
    spaces();
    if (i < s.size() && s[i] == c) return ++i, true;
    return false;
  }
  std::string found() const {
    if (i >= s.size()) return "the end of the header";
    return "'" + std::string(s.substr(i, 12)) + "' at header byte " + std::to_string(i);
  }
  std::optional<std::string> string() {
    spaces();
    if (i >= s.size() || (s[i] != '\'' && s[i] != '"')) return std::nullopt;
    const char q = s[i++];
    const std::size_t start = i;
    while (i < s.size() && s[i] != q) {
      if (s[i] == '\\') return std::nullopt;  // numpy never escapes; neither do we
      ++i;
    }
    if (i >= s.size()) return std::nullopt;
    return std::string(s.substr(start, i++ - start));
  }
  std::optional<bool> boolean() {
    spaces();
    for (auto [word, v] : {std::pair<std::string_view, bool>{"True", true}, {"False", false}})
      if (s.substr(i, word.size()) == word) return i += word.size(), v;
    return std::nullopt;
  }
  std::optional<std::uint64_t> integer() {
    spaces();
    std::uint64_t v = 0;
    const std::size_t start = i;
    for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
      auto next = checked_mul(v, 10);
      next = next ? checked_add(*next, static_cast<std::uint64_t>(s[i] - '0')) : std::nullopt;
      if (!next) {
        i = start;  // the message then shows the whole number
        return std::nullopt;
      }
      v = *next;
    }
    if (i == start) return std::nullopt;
    return v;
  }
};

Result<std::vector<std::uint64_t>, Fail> shape_of(Cursor& c) {
  if (!c.eat('(')) return Fail("'shape': expected a tuple, found " + c.found());
  std::vector<std::uint64_t> shape;
  while (!c.eat(')')) {
    auto d = c.integer();
    if (!d) return Fail("'shape': expected a dimension below 2^64, found " + c.found());
    if (shape.size() == kMaxNpyDims)
      return Fail("'shape': expected at most " + std::to_string(kMaxNpyDims) + " dimensions, found more");
    shape.push_back(*d);
    // Python needs the comma of a one-element tuple: (3) is not a tuple.
    if (c.eat(',')) continue;
    if (shape.size() == 1) return Fail("'shape': expected ',' after the first dimension, found " + c.found());
    if (!c.eat(')')) return Fail("'shape': expected ',' or ')', found " + c.found());
    break;
  }
  return shape;
}

Result<NpyArray, Fail> parse_header(std::string_view text) {
  Cursor c{text};
  if (!c.eat('{')) return Fail("expected the header to start with '{', found " + c.found());
  std::optional<std::string> descr;
  std::optional<bool> fortran;
  std::optional<std::vector<std::uint64_t>> shape;
  while (!c.eat('}')) {
    auto key = c.string();
    if (!key) return Fail("expected a quoted key, found " + c.found());
    if (!c.eat(':')) return Fail("expected ':' after '" + *key + "', found " + c.found());
    if ((*key == "descr" && descr) || (*key == "fortran_order" && fortran) || (*key == "shape" && shape))
      return Fail("expected each key once, found '" + *key + "' twice");
    if (*key == "descr") {
      descr = c.string();
      if (!descr) return Fail("'descr': expected a quoted type string, found " + c.found());
    } else if (*key == "fortran_order") {
      fortran = c.boolean();
      if (!fortran) return Fail("'fortran_order': expected True or False, found " + c.found());
    } else if (*key == "shape") {
      auto s = shape_of(c);
      if (!s) return s.error();
      shape = std::move(s).value();
    } else {
      return Fail("expected the keys 'descr', 'fortran_order' and 'shape', found '" + *key + "'");
    }
    if (!c.eat(',')) {
      if (c.eat('}')) break;
      return Fail("expected ',' or '}', found " + c.found());
    }
  }
  c.spaces();
  if (c.i != text.size()) return Fail("expected only padding after the dict, found " + c.found());
  if (!descr || !fortran || !shape) return Fail("expected the keys 'descr', 'fortran_order' and 'shape', found fewer");
  if (*fortran) return Fail("expected C order ('fortran_order': False), found True");
  NpyArray a;
  if (*descr == "<f4") a.type = NpyType::F32;
  else if (*descr == "<f2") a.type = NpyType::F16;
  else if (*descr == "<u2") a.type = NpyType::U16;
  else
    return Fail("'descr': expected '<f4', '<f2' or '<u2' (little-endian float32, float16, bf16 bit patterns), found '" +
                *descr + "'");
  a.shape = std::move(*shape);
  return a;
}

std::uint64_t item_size(NpyType t) { return t == NpyType::F32 ? 4 : 2; }

// Elements times the item size; nullopt when it does not fit 64 bits.
std::optional<std::uint64_t> data_size(const NpyArray& a) {
  const ShapeProduct p = shape_product(a.shape);
  return p.count ? checked_mul(*p.count, item_size(a.type)) : std::nullopt;
}

std::uint64_t le(std::span<const std::uint8_t> b) {
  std::uint64_t v = 0;
  for (std::size_t i = b.size(); i-- > 0;) v = v << 8 | b[i];
  return v;
}

}  // namespace

std::string_view npy_descr(NpyType t) { return t == NpyType::F32 ? "<f4" : t == NpyType::F16 ? "<f2" : "<u2"; }

Result<NpyArray, std::string> parse_npy(std::span<const std::uint8_t> file) {
  if (file.size() < kPreamble1 || !std::equal(std::begin(kMagic), std::end(kMagic), file.begin()))
    return Fail("expected an .npy file (starting with \\x93NUMPY), found another file");
  const std::uint8_t major = file[6], minor = file[7];
  if ((major != 1 && major != 2) || minor != 0)
    return Fail("expected format version 1.0 or 2.0, found " + std::to_string(major) + "." + std::to_string(minor));
  const std::size_t preamble = major == 1 ? kPreamble1 : kPreamble2;
  if (file.size() < preamble) return Fail("expected a " + std::to_string(preamble) + "-byte preamble, found a shorter file");
  const std::uint64_t header_len = le(file.subspan(8, preamble - 8));
  if (header_len > kMaxNpyHeaderBytes)
    return Fail("expected a header of at most " + std::to_string(kMaxNpyHeaderBytes) + " bytes (numpy's bound), found " +
                std::to_string(header_len));
  if (file.size() - preamble < header_len)
    return Fail("expected a header of " + std::to_string(header_len) + " bytes, found " +
                std::to_string(file.size() - preamble) + " bytes in the file");
  const std::string_view text(reinterpret_cast<const char*>(file.data() + preamble), header_len);
  if (text.empty() || text.back() != '\n') return Fail("expected the header to end with a newline");
  auto a = parse_header(text);
  if (!a) return Fail("header: " + a.error());
  const std::uint64_t have = file.size() - preamble - header_len;
  const auto need = data_size(a.value());
  if (!need) return Fail("expected a shape whose byte size fits 64 bits, found a larger one");
  if (*need != have)
    return Fail("expected " + std::to_string(*need) + " data bytes for the shape, found " + std::to_string(have));
  a.value().data.assign(file.begin() + static_cast<std::ptrdiff_t>(file.size() - have), file.end());
  return a;
}

Result<std::vector<std::uint8_t>, std::string> npy_header(NpyType type, const std::vector<std::uint64_t>& shape) {
  if (!data_size(NpyArray{type, shape, {}})) return Fail("expected a shape whose byte size fits 64 bits");
  std::string dict = "{'descr': '" + std::string(npy_descr(type)) + "', 'fortran_order': False, 'shape': (";
  for (std::size_t i = 0; i < shape.size(); ++i) dict += (i ? ", " : "") + std::to_string(shape[i]);
  dict += shape.size() == 1 ? ",), }" : "), }";
  const std::size_t preamble = dict.size() + 1 + kPreamble1 <= 65535 ? kPreamble1 : kPreamble2;
  const std::size_t total = (preamble + dict.size() + 1 + 63) / 64 * 64;  // numpy aligns the data to 64 bytes
  dict.append(total - preamble - dict.size() - 1, ' ');
  dict += '\n';
  std::vector<std::uint8_t> out(std::begin(kMagic), std::end(kMagic));
  out.push_back(preamble == kPreamble1 ? 1 : 2);
  out.push_back(0);
  for (std::size_t b = 0; b < preamble - 8; ++b) out.push_back(static_cast<std::uint8_t>(dict.size() >> (8 * b)));
  out.insert(out.end(), dict.begin(), dict.end());
  return out;
}

Result<std::vector<std::uint8_t>, std::string> serialize_npy(const NpyArray& a) {
  const auto need = data_size(a);
  if (!need || *need != a.data.size()) return Fail("expected data of the shape's size");
  auto out = npy_header(a.type, a.shape);
  if (!out) return out.error();
  out.value().insert(out.value().end(), a.data.begin(), a.data.end());
  return out;
}

bool is_npy_path(std::string_view path) { return path.ends_with(".npy"); }

Result<NpyArray, std::string> read_npy_file(const std::string& path) {
  auto f = ByteFile::open(path);
  if (!f) return path + ": " + f.error().message;
  const std::uint64_t bound = kMaxTensorBytes + kPreamble2 + kMaxNpyHeaderBytes;
  if (f.value().size() > bound)
    return path + ": expected at most " + std::to_string(bound) + " bytes (" + std::to_string(kMaxTensorBytes) +
           " of data), found " + std::to_string(f.value().size());
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(f.value().size()));
  auto r = f.value().read_at(0, bytes);
  if (!r) return path + ": " + r.error().message;
  auto a = parse_npy(bytes);
  if (!a) return path + ": " + a.error();
  return std::move(a).value();
}

Result<Unit, std::string> write_npy_file(const std::string& path, const NpyArray& a) {
  auto bytes = serialize_npy(a);
  if (!bytes) return path + ": " + bytes.error();
  auto w = write_file(path, bytes.value());
  if (!w) return path + ": " + w.error().message;
  return Unit{};
}

}  // namespace safespec
