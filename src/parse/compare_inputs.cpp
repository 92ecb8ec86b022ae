#include "src/parse/compare_inputs.hpp"

#include <algorithm>
#include <array>
#include <filesystem>

#include "src/io/byte_file.hpp"
#include "src/parse/layer_io.hpp"

namespace safespec {

namespace {

constexpr std::array<std::uint8_t, 6> kNpyMagic = {0x93, 'N', 'U', 'M', 'P', 'Y'};

Dtype dtype_of(NpyType t) {
  switch (t) {
    case NpyType::F32: return Dtype::F32;
    case NpyType::F16: return Dtype::F16;
    case NpyType::U16: break;
  }
  return Dtype::U16;
}

// Whether the file begins as a .npy does (a file too short to say is not one).
bool starts_as_npy(const std::string& path) {
  auto f = ByteFile::open(path);
  if (!f || f.value().size() < kNpyMagic.size()) return false;
  std::array<std::uint8_t, kNpyMagic.size()> head{};
  return f.value().read_at(0, head) && head == kNpyMagic;
}

}  // namespace

CompareInput::CompareInput(CompareInput&&) noexcept = default;
CompareInput& CompareInput::operator=(CompareInput&&) noexcept = default;
CompareInput::~CompareInput() = default;

Result<CompareInput, std::string> CompareInput::open(const std::string& path) {
  CompareInput in;
  in.path_ = path;
  if (starts_as_npy(path)) {
    auto a = read_npy_file(path);
    if (!a) return a.error();
    in.npy_dtype_ = dtype_of(a.value().type);
    in.npy_name_ = std::filesystem::path(path).stem().string();
    in.npy_ = std::move(a.value());
    return in;
  }
  auto r = CheckpointReader::open(path);
  if (!r) {
    // A .npy by name that is not one by its bytes says so first.
    if (is_npy_path(path)) return path + ": expected a .npy file (starting \\x93NUMPY), found other bytes";
    return r.error().message + " (compare reads safetensors files and .npy arrays)";
  }
  in.reader_ = std::move(r.value());
  return in;
}

void CompareInput::name_after(const CompareInput& other) {
  if (!npy_) return;
  const std::vector<std::string> theirs = other.names();
  if (!other.is_npy() && theirs.size() == 1) npy_name_ = theirs.front();
}

void CompareInput::read_u16_as(Dtype d) {
  if (npy_ && npy_->type == NpyType::U16 && d == Dtype::BF16) npy_dtype_ = Dtype::BF16;
}

std::vector<std::string> CompareInput::names() const {
  if (npy_) return {npy_name_};
  std::vector<std::string> out;
  for (std::string_view n : reader_->tensor_names()) out.emplace_back(n);
  return out;
}

std::optional<CompareTensor> CompareInput::find(const std::string& name) const {
  if (npy_) {
    if (name != npy_name_) return std::nullopt;
    return CompareTensor{npy_dtype_, npy_->shape};
  }
  const quant::TensorRef* t = reader_->find(name);
  if (!t) return std::nullopt;
  return CompareTensor{t->entry->dtype, std::vector<std::uint64_t>(t->entry->shape)};
}

Result<std::vector<std::uint8_t>, std::string> CompareInput::bytes(const std::string& name) const {
  if (npy_) return npy_->data;
  const quant::TensorRef* t = reader_->find(name);
  if (!t) return path_ + ": no tensor " + name;
  auto b = reader_->bytes(*t);
  if (!b) return path_ + ": " + b.error().message;
  return std::move(b.value());
}

}  // namespace safespec
