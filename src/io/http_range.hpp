// A checkpoint at an http:// or https:// URL, read the way
// huggingface_hub.get_safetensors_metadata reads one: HTTP Range requests
// for the bytes asked (the 8-byte prefix and the header; with --data, the
// tensors the value rules read), never the whole file. libcurl does the HTTP.
//
// Every bound is in spec/limits.hpp: redirects, the connect and request
// timeouts, the attempts (only transient failures are tried again) and the
// first request's length. Only http and https are spoken, redirects included
// (curl would otherwise follow file://, ftp://, ...). A server that ignores
// Range (HTTP 200) or answers another range than asked is refused as soon as
// its headers arrive: nothing is downloaded that was not asked for. The size
// is Content-Range's total ("bytes 0-7/12345"); a server that gives "*" is
// refused, since the container rules that need the size cannot be checked.
#pragma once

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

}  // namespace safespec
