// What `safespec compare` reads on each side: a safetensors file (its
// tensors by name) or a .npy file (one array, which `linear` and `dequant`
// write). A file is told by its first bytes, not its name: a .npy begins
// "\x93NUMPY". A .npy array has no name: it takes the other side's name when
// that side holds one tensor, else its file's stem ("y.npy": "y"). Its
// '<u2' elements are how .npy carries bf16: read as BF16 when the other
// side's tensor is BF16, else as U16.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "spec/dtype.hpp"
#include "spec/result.hpp"
#include "src/io/npy.hpp"

namespace safespec {

class CheckpointReader;

struct CompareTensor {
  Dtype dtype;
  std::vector<std::uint64_t> shape;
};

class CompareInput {
 public:
  // The file at path; an error names the file and says what it is not.
  static Result<CompareInput, std::string> open(const std::string& path);
  CompareInput(CompareInput&&) noexcept;
  CompareInput& operator=(CompareInput&&) noexcept;
  ~CompareInput();

  bool is_npy() const { return npy_.has_value(); }
  // Names the .npy array after the other side (see above); nothing for a safetensors file.
  void name_after(const CompareInput& other);
  std::vector<std::string> names() const;
  std::optional<CompareTensor> find(const std::string& name) const;
  // Its bytes, little-endian as stored; errors name the file.
  Result<std::vector<std::uint8_t>, std::string> bytes(const std::string& name) const;
  // A '<u2' array read as BF16 when the other side is BF16.
  void read_u16_as(Dtype d);

 private:
  CompareInput() = default;
  std::string path_;
  std::unique_ptr<CheckpointReader> reader_;
  std::optional<NpyArray> npy_;
  std::string npy_name_;
  Dtype npy_dtype_ = Dtype::F32;
};

}  // namespace safespec
