// Memory for a header read whole: a URL's (one request), or a text the fast
// path hands to the reference reader (a local file's plain header is read in
// windows instead, src/parse/load.cpp). On these VMs the first touch of each 4 KiB
// page costs about 13 µs, more than parsing the page (about 3 ms a
// MB), so a large header's buffer asks for transparent huge pages: a 9 MB
// header then faults 5 times instead of 2,300.
//
// Why not map the file: a mapping of a file that another process truncates
// while it is being checked kills the reader with SIGBUS, and safespec never
// crashes on any input. A buffer filled by pread (ByteFile) reads the same
// bytes from the page cache, the same way for local files, standard input
// and URLs, and a file that shrinks is an I/O error.
#pragma once

#include <cstddef>
#include <cstdint>

namespace safespec {

class HeaderMemory {
 public:
  // `bytes` writable bytes, uninitialised; huge pages asked for (madvise)
  // from 2 MiB, ordinary heap memory when the mapping fails.
  explicit HeaderMemory(std::size_t bytes);
  HeaderMemory(const HeaderMemory&) = delete;
  HeaderMemory& operator=(const HeaderMemory&) = delete;
  ~HeaderMemory();

  std::uint8_t* data() const { return data_; }

 private:
  std::uint8_t* data_ = nullptr;
  std::size_t mapped_ = 0;  // the mapping's length; 0 when data_ is from new[]
};

// Asks for transparent huge pages on the whole 2 MiB pages inside
// [data, data + bytes), a heap block that is about to be filled front to
// back (a large header's tensor list): without it each 4 KiB page of a fresh
// block faults on its first touch, a fifth of reading a 100 MB header in a
// warm loop, since blocks that large are mapped afresh
// by malloc on every call. Advice only: nothing happens below 2 MiB, without
// THP, or when the kernel refuses.
void advise_huge_pages(const void* data, std::size_t bytes);

}  // namespace safespec
