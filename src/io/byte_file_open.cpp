// ByteFile::open: which opener a path gets. Here rather than in
// byte_file.cpp so that the HTTP source, built on ByteFile, is not a
// dependency of ByteFile itself: byte_file <- http_range <- this.
#include "src/io/byte_file.hpp"
#include "src/io/http_range.hpp"

namespace safespec {

Result<ByteFile, IoError> ByteFile::open(const std::string& path) {
  if (is_stdin_path(path)) return open_stdin();
  if (is_url(path)) return open_url(path);
  return open_local(path);
}

}  // namespace safespec
