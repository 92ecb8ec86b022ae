// A tensor's name, and the arena a parsed header keeps its names in.
//
// Names are most of a header's bytes, and as std::string each name past 15
// characters was a heap block of its own: a malloc, a free, and 64 bytes for
// a 45-character name beside the string's 32 (6 MiB of the
// 100,000-tensor check's 21 MiB, and a tenth of its time). A reader that
// builds a Header copies each name into the Header's NameArena instead and
// the entry borrows it: 16 bytes in the entry, the name's own bytes in a
// block shared with thousands of others.
//
// Ownership, so that no name outlives its bytes:
// - a Name made from text (a literal, a std::string, a view) owns a copy;
// - Name::borrowed is for a reader filling a Header from that Header's arena;
// - copying a Name always makes an owning copy, so a copied TensorEntry or a
//   copied Header stands alone (and a copied arena starts empty);
// - moving a Name moves what it holds, and a moved Header moves its arena,
//   whose blocks stay where they are: names borrowed from it stay valid.
//   The one way to dangle is to move a borrowed entry out of a Header and
//   then destroy the Header; nothing in safespec does.
#pragma once

#include <algorithm>
#include <compare>
#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace safespec {

class Name;
template <class T>
concept TextLike = std::is_convertible_v<const T&, std::string_view> && !std::is_same_v<std::remove_cvref_t<T>, Name>;

class Name {
 public:
  static constexpr std::size_t kMaxSize = 0xFFFFFFFFu;

  Name() noexcept = default;
  Name(std::string_view text) { own(text); }                // NOLINT: implicit, as std::string's
  Name(const char* text) : Name(std::string_view(text)) {}  // NOLINT: implicit
  Name(const std::string& text) : Name(std::string_view(text)) {}  // NOLINT: implicit
  static Name borrowed(std::string_view text) noexcept {
    Name n;
    n.data_ = text.data();
    n.size_ = static_cast<std::uint32_t>(text.size());
    return n;
  }
  Name(const Name& other) { own(other.view()); }
  Name(Name&& other) noexcept { take(other); }
  Name& operator=(const Name& other) {
    if (this != &other) {
      Name copy(other);
      release();
      take(copy);
    }
    return *this;
  }
  Name& operator=(Name&& other) noexcept {
    if (this != &other) {
      release();
      take(other);
    }
    return *this;
  }
  ~Name() { release(); }

  std::string_view view() const noexcept { return {data_, size_}; }
  operator std::string_view() const noexcept { return view(); }  // NOLINT: implicit
  explicit operator std::string() const { return std::string(view()); }
  std::string str() const { return std::string(view()); }
  const char* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  bool owned() const noexcept { return owned_; }

  // Compares as its text does. The text-like overloads are templates so that
  // name == "literal" takes them (an exact match), not Name == Name through
  // a conversion, which would be ambiguous with them.
  friend bool operator==(const Name& a, const Name& b) noexcept { return a.view() == b.view(); }
  friend std::strong_ordering operator<=>(const Name& a, const Name& b) noexcept { return a.view().compare(b.view()) <=> 0; }
  template <class T>
    requires TextLike<T>
  friend bool operator==(const Name& a, const T& b) noexcept {
    return a.view() == std::string_view(b);
  }
  template <class T>
    requires TextLike<T>
  friend std::strong_ordering operator<=>(const Name& a, const T& b) noexcept {
    return a.view().compare(std::string_view(b)) <=> 0;
  }

 private:
  void own(std::string_view text) {
    if (text.size() > kMaxSize) throw std::length_error("safespec::Name: longer than 2^32 - 1 bytes");
    if (text.empty()) return;
    auto* bytes = new char[text.size()];
    std::memcpy(bytes, text.data(), text.size());
    data_ = bytes;
    size_ = static_cast<std::uint32_t>(text.size());
    owned_ = true;
  }
  void take(Name& other) noexcept {
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    owned_ = std::exchange(other.owned_, false);
  }
  void release() noexcept {
    if (owned_) delete[] data_;
    data_ = nullptr;
    size_ = 0;
    owned_ = false;
  }

  const char* data_ = nullptr;
  std::uint32_t size_ = 0;
  bool owned_ = false;
};

// Bytes that stay where they are written until the arena is destroyed.
// Blocks double up to kMaxBlock. A text that does not fit in the open block
// leaves its tail unused and opens the next, so that tail is shorter than the
// text, at most kOwnBlock: a quarter of a full block. A longer text gets a
// block of exactly its size and leaves the open block open (one that opened
// a block each would waste up to half of every block).
class NameArena {
 public:
  static constexpr std::size_t kFirstBlock = 4096;
  static constexpr std::size_t kMaxBlock = std::size_t{1} << 20;
  static constexpr std::size_t kOwnBlock = kMaxBlock / 4;

  NameArena() = default;
  // A copied Header's names are owning copies: the copy needs no bytes here.
  NameArena(const NameArena&) noexcept {}
  NameArena& operator=(const NameArena&) noexcept { return *this; }
  NameArena(NameArena&& other) noexcept { take(other); }
  NameArena& operator=(NameArena&& other) noexcept {
    if (this != &other) take(other);
    return *this;
  }
  ~NameArena() = default;

  // Storage is not part of a Header's value.
  friend bool operator==(const NameArena&, const NameArena&) noexcept { return true; }

  // At most `bytes` of text will be stored: the first block is no larger
  // (from 64 bytes; a 1 KB header's names then take one small block, not
  // kFirstBlock, which malloc's slow path handed out and took back each
  // time). No effect once a block is open.
  void expect(std::size_t bytes) noexcept {
    if (!first_) next_ = std::clamp<std::size_t>(bytes, 64, kFirstBlock) / 2;
  }

  std::string_view store(std::string_view text) {
    if (text.size() > Name::kMaxSize) throw std::length_error("safespec::NameArena: text longer than 2^32 - 1 bytes");
    if (text.size() > kOwnBlock) {
      char* at = add_block(text.size());
      std::memcpy(at, text.data(), text.size());
      stored_ += text.size();
      return {at, text.size()};
    }
    if (text.size() > left_) {
      next_ = next_ < kMaxBlock ? next_ * 2 : kMaxBlock;
      const std::size_t size = text.size() > next_ ? text.size() : next_;
      free_ = add_block(size);  // first: if it throws, the open block stays as it was
      left_ = size;
    }
    char* at = free_;
    if (!text.empty()) std::memcpy(at, text.data(), text.size());
    free_ += text.size();
    left_ -= text.size();
    stored_ += text.size();
    return {at, text.size()};
  }
  // Bytes stored so far: what a reader stored once per name shows here.
  std::size_t stored() const noexcept { return stored_; }
  // Bytes of the blocks: what the arena costs.
  std::size_t allocated() const noexcept { return allocated_; }

 private:
  void take(NameArena& other) noexcept {
    first_ = std::move(other.first_);
    blocks_ = std::move(other.blocks_);
    other.blocks_.clear();
    free_ = std::exchange(other.free_, nullptr);
    left_ = std::exchange(other.left_, 0);
    next_ = std::exchange(other.next_, kFirstBlock / 2);
    stored_ = std::exchange(other.stored_, 0);
    allocated_ = std::exchange(other.allocated_, 0);
  }
  char* add_block(std::size_t size) {
    auto block = std::make_unique_for_overwrite<char[]>(size);
    char* at = block.get();
    if (!first_) first_ = std::move(block);
    else blocks_.push_back(std::move(block));
    allocated_ += size;
    return at;
  }

  // The first block apart from the rest: most headers need one block, and
  // a list for it was one more allocation for every header read (one of the
  // five a 1 KB header took).
  std::unique_ptr<char[]> first_;
  std::vector<std::unique_ptr<char[]>> blocks_;
  char* free_ = nullptr;
  std::size_t left_ = 0;
  std::size_t next_ = kFirstBlock / 2;
  std::size_t stored_ = 0;
  std::size_t allocated_ = 0;
};

}  // namespace safespec
