// A checkpoint at an http:// or https:// URL, read the way
// huggingface_hub.get_safetensors_metadata reads one: HTTP Range requests
// for the bytes asked (the 8-byte prefix and the header; with --data, the
// tensors the value rules read), never the whole file. libcurl does the HTTP.
//
// Every bound is in spec/limits.hpp: redirects, the connect and request
// timeouts, the attempts (only transient failures are tried again) and the
// first request's length. Only http and https are spoken, redirects included
// (curl would otherwise follow file://, ftp://, ...). A server that ignores
// Range (HTTP 200) to the first request has the start of its answer read,
// up to the header's end, and the transfer cut there: the header is checked,
// and what lies past it (markers, --data) is said to be unread
// (ByteSource::unreadable), never asked for by a download of the file. A
// later answer that is a 200, or another range than asked, is refused as soon
// as its headers arrive. The size
// is Content-Range's total ("bytes 0-7/12345"); a server that gives "*" is
// refused, since the container rules that need the size cannot be checked.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "src/io/byte_file.hpp"

namespace safespec {

// Lowers both timeouts to this many milliseconds when set to a positive
// integer (the tests' slow server); never raises them.
inline constexpr std::string_view kHttpTimeoutEnv = "SAFESPEC_HTTP_TIMEOUT_MS";

// One ranged request for the first kHttpFirstReadBytes (kept: the prefix and
// most headers are then read from memory), which also gives the size. Later
// reads are one ranged request each, on the same connection when the server
// keeps it open. Not for use from two threads at once.
Result<ByteFile, IoError> open_url(const std::string& url);

// What the URLs of this process have cost so far (any thread): requests
// made (attempts included), body bytes received, URLs opened (a head not
// kept from before). For the progress line of `check`, and tests.
struct HttpCounters {
  std::uint64_t requests = 0;
  std::uint64_t bytes = 0;
  std::uint64_t urls = 0;
};
HttpCounters http_counters();

}  // namespace safespec
