// A tensor's dimensions. A million-tensor header holds a million shapes, and
// as std::vector each was a heap block of its own (a malloc, a free, and 32
// bytes beside the 24 of the vector): up to kInlineDims dimensions are held
// in place instead, a longer shape goes to the heap. Three covers every
// tensor of the language models whose checkpoints hold 10^5-10^6 tensors
// (ranks 1-3); a convolution's four dimensions take a heap block, which the
// few thousand tensors of a diffusion model do not notice, and a fourth
// inline dimension would cost every tensor 8 bytes (a TensorEntry of 80
// bytes, not 72: 0.8 MiB of the 100,000-tensor benchmark's 17 MiB). Reads like a std::vector<uint64_t>,
// is made from one implicitly, and becomes one only when asked (a copy), so
// no per-tensor copy hides behind a call.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <span>
#include <stdexcept>
#include <vector>

namespace safespec {

class Shape {
 public:
  static constexpr std::uint32_t kInlineDims = 3;
  static constexpr std::size_t kMaxDims = 0xFFFFFFFFu;
  using value_type = std::uint64_t;
  using size_type = std::size_t;
  using iterator = std::uint64_t*;
  using const_iterator = const std::uint64_t*;

  Shape() = default;
  Shape(std::initializer_list<std::uint64_t> dims) { assign(dims.begin(), dims.size()); }
  Shape(const std::vector<std::uint64_t>& dims) { assign(dims.data(), dims.size()); }  // NOLINT: implicit
  explicit Shape(std::span<const std::uint64_t> dims) { assign(dims.data(), dims.size()); }
  Shape(const Shape& other) { assign(other.data(), other.size()); }
  Shape(Shape&& other) noexcept { take(other); }
  Shape& operator=(const Shape& other) {
    if (this != &other) {
      release();
      assign(other.data(), other.size());
    }
    return *this;
  }
  Shape& operator=(Shape&& other) noexcept {
    if (this != &other) {
      release();
      take(other);
    }
    return *this;
  }
  ~Shape() { release(); }

  explicit operator std::vector<std::uint64_t>() const { return {begin(), end()}; }
  operator std::span<const std::uint64_t>() const { return {data(), size()}; }  // NOLINT: implicit

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const std::uint64_t* data() const { return on_heap() ? heap_ : inline_; }
  std::uint64_t* data() { return on_heap() ? heap_ : inline_; }
  const_iterator begin() const { return data(); }
  const_iterator end() const { return data() + size_; }
  iterator begin() { return data(); }
  iterator end() { return data() + size_; }
  std::uint64_t operator[](std::size_t i) const { return data()[i]; }
  std::uint64_t& operator[](std::size_t i) { return data()[i]; }
  std::uint64_t front() const { return data()[0]; }
  std::uint64_t back() const { return data()[size_ - 1]; }

  // As std::vector's length_error past max_size(): no reader reaches it (a
  // header's ranks are below 5 x 10^7), a caller's own vector might.
  void reserve(std::size_t n) {
    if (n > kMaxDims) throw std::length_error("Shape: more than 2^32 - 1 dimensions");
    if (n > capacity_) grow(n);
  }
  void push_back(std::uint64_t d) {
    if (size_ == capacity_)
      reserve(size_ == kMaxDims ? kMaxDims + 1 : std::min<std::size_t>(std::size_t{capacity_} * 2, kMaxDims));
    data()[size_++] = d;
  }
  void clear() { size_ = 0; }

  friend bool operator==(const Shape& a, const Shape& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }

 private:
  bool on_heap() const { return capacity_ > kInlineDims; }
  void assign(const std::uint64_t* dims, std::size_t n) {
    reserve(n);
    if (n != 0) std::memcpy(data(), dims, n * sizeof(std::uint64_t));
    size_ = static_cast<std::uint32_t>(n);
  }
  void grow(std::size_t n) {
    auto* bigger = new std::uint64_t[n];
    const std::uint32_t size = size_;
    if (size != 0) std::memcpy(bigger, data(), size * sizeof(std::uint64_t));
    release();
    heap_ = bigger;
    size_ = size;
    capacity_ = static_cast<std::uint32_t>(n);
  }
  void release() {
    if (on_heap()) delete[] heap_;
    size_ = 0;
    capacity_ = kInlineDims;
  }
  void take(Shape& other) {
    size_ = other.size_;
    capacity_ = other.capacity_;
    if (other.on_heap()) heap_ = other.heap_;
    else std::memcpy(inline_, other.inline_, sizeof(inline_));
    other.size_ = 0;
    other.capacity_ = kInlineDims;
  }

  // A shape's rank is below 2^32: a header of kMaxHeaderSize bytes holds at
  // most 5 x 10^7 numbers, and any other source holds them in memory.
  std::uint32_t size_ = 0;
  std::uint32_t capacity_ = kInlineDims;
  union {
    std::uint64_t inline_[kInlineDims] = {};
    std::uint64_t* heap_;
  };
};

}  // namespace safespec
