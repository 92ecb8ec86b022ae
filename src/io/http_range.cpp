#include "src/io/http_range.hpp"

#include "src/io/http_headers.hpp"

// The prototypes only: libcurl is loaded with dlopen (see curl_lib).
#define CURL_DISABLE_TYPECHECK
#include <curl/curl.h>
#include <dlfcn.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <deque>
#include <cctype>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "spec/limits.hpp"

namespace safespec {

namespace {

using http::ContentRange;
using http::iequals_prefix;
using http::number;
using http::parse_content_range;
using http::trim;

// What every source of this process has asked and received (HttpCounters).
std::atomic<std::uint64_t> g_requests{0};
std::atomic<std::uint64_t> g_body_bytes{0};
std::atomic<std::uint64_t> g_urls{0};

struct Timeouts {
  long connect_ms = kHttpConnectTimeoutMs;
  long total_ms = kHttpRequestTimeoutMs;
};

Timeouts timeouts() {
  Timeouts t;
  const char* v = std::getenv(std::string(kHttpTimeoutEnv).c_str());
  if (!v) return t;
  long ms = 0;
  const char* end = v + std::strlen(v);
  const auto [p, ec] = std::from_chars(v, end, ms);
  if (ec != std::errc() || p != end || ms <= 0) return t;
  t.total_ms = std::min(t.total_ms, ms);
  t.connect_ms = std::min(t.connect_ms, ms);
  return t;
}

// libcurl, loaded on the first URL, not linked: a local check maps and
// starts exactly as before (no 30 more shared libraries, whose address space
// the memory bound of docs/hardening.md would have to absorb). The headers
// are Debian's libcurl4-openssl-dev; the library its libcurl4.
struct Curl {
  decltype(&curl_global_init) global_init = nullptr;
  decltype(&curl_easy_init) easy_init = nullptr;
  decltype(&curl_easy_cleanup) easy_cleanup = nullptr;
  decltype(&curl_easy_reset) easy_reset = nullptr;
  decltype(&curl_easy_setopt) easy_setopt = nullptr;
  decltype(&curl_easy_perform) easy_perform = nullptr;
  decltype(&curl_easy_strerror) easy_strerror = nullptr;
};

template <typename F>
bool find(void* lib, const char* name, F& out) {
  out = reinterpret_cast<F>(::dlsym(lib, name));
  return out != nullptr;
}

// Loaded once per process and never unloaded.
Result<const Curl*, IoError> curl_lib() {
  static std::once_flag once;
  static Curl curl;
  static std::string error;
  std::call_once(once, [] {
    void* lib = ::dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      const char* why = ::dlerror();
      error = std::string("reading a URL needs libcurl (Debian: libcurl4): ") + (why ? why : "libcurl.so.4 not found");
      return;
    }
    if (!find(lib, "curl_global_init", curl.global_init) || !find(lib, "curl_easy_init", curl.easy_init) ||
        !find(lib, "curl_easy_cleanup", curl.easy_cleanup) || !find(lib, "curl_easy_reset", curl.easy_reset) ||
        !find(lib, "curl_easy_setopt", curl.easy_setopt) || !find(lib, "curl_easy_perform", curl.easy_perform) ||
        !find(lib, "curl_easy_strerror", curl.easy_strerror)) {
      error = "reading a URL needs libcurl: libcurl.so.4 lacks curl_easy_* functions";
      return;
    }
    if (curl.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) error = "libcurl failed to initialise";
  });
  if (!error.empty()) return IoError{error};
  return &curl;
}

// One ranged GET: bytes [first, first + out.size()) asked; what came back.
struct Transfer {
  std::uint64_t first = 0;
  std::span<std::uint8_t> out;
  std::size_t received = 0;
  std::string content_range;  // of the latest response
  std::string location;       // of the latest redirect
  std::optional<ContentRange> range;
  long status = 0;
  std::string refusal;      // why the transfer was stopped at the headers
  bool transient = false;   // the refusal is worth another attempt
  bool past_end = false;    // HTTP 416: the file ends before `first`
  std::optional<std::uint64_t> size;  // the total of a 416's "bytes */T"
  // A 200 (the whole file) is taken for the first request: its start, up to
  // the end of the header, goes to `whole_body` and the transfer is then cut.
  bool whole_ok = false;
  bool whole = false;  // the final answer is such a 200
  std::optional<std::uint64_t> content_length;
  std::vector<std::uint8_t> whole_body;
  std::uint64_t whole_want = 0;  // what whole_body needs; 0 until the prefix is in
  bool whole_done = false;       // whole_body holds it: the rest is not taken
};

std::string asked(const Transfer& t) {
  return "bytes=" + std::to_string(t.first) + "-" + std::to_string(t.first + t.out.size() - 1);
}

// The headers of the final response decide: a 206 for the range asked is
// read; anything else stops the transfer before its body is downloaded.
bool judge_headers(Transfer& t) {
  if (t.status < 200 || (t.status >= 300 && t.status < 400)) return true;  // 1xx, or a redirect curl follows
  if (t.status == 200 && t.whole_ok) {
    if (!t.content_length) {
      t.refusal = "the server ignores Range requests (it answered HTTP 200, the whole file, to 'Range: " + asked(t) +
                  "') and does not say the file's size (no Content-Length): the container rules need it, so the file "
                  "is not checked";
      return false;
    }
    t.whole = true;
    return true;
  }
  if (t.status == 200) {
    t.refusal = "the server ignores Range requests (it answered HTTP 200, the whole file, to 'Range: " + asked(t) +
                "'): refused, not downloaded";
    return false;
  }
  if (t.status == 416) {
    const auto r = parse_content_range(t.content_range);
    t.past_end = true;
    if (r && r->total) t.size = r->total;
    return false;  // its body is an error page
  }
  if (t.status != 206) {
    t.refusal = "the server answered HTTP " + std::to_string(t.status);
    t.transient = t.status == 429 || t.status == 500 || t.status == 502 || t.status == 503 || t.status == 504;
    return false;
  }
  t.range = parse_content_range(t.content_range);
  const std::uint64_t want_last = t.first + t.out.size() - 1;
  // A range that ends early is the end of the file, which its total says
  // (a total of "*" says nothing: the opener refuses such a file).
  const bool ok = t.range && t.range->first == t.first && t.range->last &&
                  (*t.range->last == want_last ||
                   (*t.range->last < want_last && (!t.range->total || *t.range->total == *t.range->last + 1))) &&
                  (!t.range->total || *t.range->total > *t.range->last);
  if (!ok) {
    t.refusal = "the server answered 'Range: " + asked(t) + "' with Content-Range '" + t.content_range +
                "', not the bytes asked: refused";
    return false;
  }
  return true;
}

std::size_t on_header(char* data, std::size_t size, std::size_t n, void* user) {
  auto& t = *static_cast<Transfer*>(user);
  const std::string_view line(data, size * n);
  if (line.starts_with("HTTP/")) {  // a new response (after a redirect, or a 100)
    t.content_range.clear();
    t.range.reset();
    t.content_length.reset();
    const auto space = line.find(' ');
    t.status = space == std::string_view::npos ? 0 : static_cast<long>(number(line.substr(space + 1, 3)).value_or(0));
  } else if (iequals_prefix(line, "content-range:")) {
    t.content_range = std::string(trim(line.substr(14)));
  } else if (iequals_prefix(line, "content-length:")) {
    t.content_length = number(trim(line.substr(15)));
  } else if (iequals_prefix(line, "location:")) {
    t.location = std::string(trim(line.substr(9)));
  } else if (trim(line).empty() && !judge_headers(t)) {
    return 0;  // stops the transfer (CURLE_WRITE_ERROR)
  }
  return size * n;
}

// The start of a 200's body: the first kHttpFirstReadBytes, or up to the
// header's end when the prefix announces a longer header that lies inside
// the file (at most kMaxHeaderSize); then the transfer is cut, so a server
// that ignores Range sends the header and what its socket buffers held,
// never the file.
std::size_t on_whole_body(Transfer& t, const char* data, std::size_t len) {
  const std::uint64_t size = *t.content_length;
  const std::size_t had = t.whole_body.size();
  const auto want = [&]() -> std::uint64_t {
    const std::uint64_t first = std::min<std::uint64_t>(size, kHttpFirstReadBytes);
    if (t.whole_body.size() < 8) return first;
    std::uint64_t n = 0;
    for (int i = 0; i < 8; ++i) n |= std::uint64_t{t.whole_body[static_cast<std::size_t>(i)]} << (8 * i);
    if (n > kMaxHeaderSize || n > size - std::min<std::uint64_t>(size, 8)) return first;
    return std::max(first, 8 + n);
  };
  if (t.whole_want == 0 || had < 8) t.whole_want = want();
  std::size_t take = static_cast<std::size_t>(std::min<std::uint64_t>(len, t.whole_want - had));
  t.whole_body.insert(t.whole_body.end(), data, data + take);
  if (had < 8 && t.whole_body.size() >= 8) {  // the prefix just came: the header's end is known
    t.whole_want = want();
    const std::size_t more = static_cast<std::size_t>(std::min<std::uint64_t>(len - take, t.whole_want - t.whole_body.size()));
    t.whole_body.insert(t.whole_body.end(), data + take, data + take + more);
    take += more;
  }
  t.received = t.whole_body.size();
  if (t.whole_body.size() < t.whole_want) return len;
  t.whole_done = true;
  return t.whole_body.size() == size ? len : 0;  // 0 cuts the transfer (CURLE_WRITE_ERROR)
}

std::size_t on_body(char* data, std::size_t size, std::size_t n, void* user) {
  auto& t = *static_cast<Transfer*>(user);
  const std::size_t len = size * n;
  g_body_bytes.fetch_add(len, std::memory_order_relaxed);
  if (t.whole) return on_whole_body(t, data, len);
  if (len > t.out.size() - t.received) {
    t.refusal = "the server sent more than the " + std::to_string(t.out.size()) + " bytes asked ('Range: " +
                asked(t) + "'): refused";
    return 0;
  }
  std::memcpy(t.out.data() + t.received, data, len);
  t.received += len;
  return len;
}

bool transient_code(CURLcode c) {
  return c == CURLE_COULDNT_CONNECT || c == CURLE_OPERATION_TIMEDOUT || c == CURLE_PARTIAL_FILE ||
         c == CURLE_RECV_ERROR || c == CURLE_SEND_ERROR || c == CURLE_GOT_NOTHING;
}

// The first bytes of a URL and its size, as the first request gave them.
struct Head {
  std::vector<std::uint8_t> bytes;
  std::uint64_t size = 0;
  bool ranged = true;  // false: the server ignores Range, and `bytes` is all it gave
};

// Why bytes past a 200's start are not read: said the same by every read.
std::string not_ranged(std::uint64_t offset, std::uint64_t size, std::uint64_t held) {
  return "the server ignores Range requests (it answered HTTP 200, the whole file): only its first " +
         std::to_string(held) + " bytes, the header within them, were read before the transfer was cut; the " +
         std::to_string(size) + " bytes at offset " + std::to_string(offset) +
         " would cost downloading the file up to them";
}

// A server, with the connection kept between requests.
class HttpSource final : public ByteSource {
 public:
  HttpSource(const Curl& lib, std::string url) : lib_(lib), url_(std::move(url)), curl_(lib.easy_init()) {}
  ~HttpSource() override {
    if (curl_) lib_.easy_cleanup(curl_);
  }
  HttpSource(const HttpSource&) = delete;
  HttpSource& operator=(const HttpSource&) = delete;

  // The first bytes, kept; the file's size from Content-Range.
  Result<Unit, IoError> start() {
    auto head = std::make_shared<Head>();
    head->bytes.resize(kHttpFirstReadBytes);
    Transfer t;
    auto r = request(0, head->bytes, t, true);
    if (!r) return r.error();
    if (t.whole) {
      head->bytes = std::move(t.whole_body);
      head->bytes.shrink_to_fit();
      head->size = *t.content_length;
      head->ranged = false;
      head_ = std::move(head);
      return Unit{};
    }
    if (t.past_end) {  // "bytes */0": an empty file
      if (!t.size || *t.size != 0) return IoError{"the server answered HTTP 416 to 'Range: " + asked(t) + "'"};
      head->bytes.clear();
      head_ = std::move(head);
      return Unit{};
    }
    if (!t.range->total)
      return IoError{"the server does not say the file's size (Content-Range '" + t.content_range +
                     "'): the container rules need it, so the file is not checked"};
    head->bytes.resize(t.received);
    head->bytes.shrink_to_fit();
    head->size = *t.range->total;
    head_ = std::move(head);
    return Unit{};
  }
  // Or what an earlier start() of the same URL read.
  void start_from(std::shared_ptr<const Head> head) { head_ = std::move(head); }

  std::shared_ptr<const Head> head() const { return head_; }
  std::uint64_t size() const { return head_->size; }

  Result<Unit, IoError> read_at(std::uint64_t offset, std::span<std::uint8_t> out) const override {
    if (out.empty()) return Unit{};
    const std::vector<std::uint8_t>& head = head_->bytes;
    if (offset <= head.size() && out.size() <= head.size() - offset) {
      std::memcpy(out.data(), head.data() + offset, out.size());
      return Unit{};
    }
    if (!head_->ranged) return IoError{not_ranged(offset, out.size(), head.size())};
    Transfer t;
    auto r = request(offset, out, t);
    if (!r) return r.error();
    if (t.past_end || t.received < out.size())
      return IoError{"the file ends before the bytes asked ('Range: " + asked(t) + "')"};
    return Unit{};
  }

  std::optional<std::string> unreadable(std::uint64_t offset, std::uint64_t size) const override {
    const std::uint64_t held = head_->bytes.size();
    if (head_->ranged || (offset <= held && size <= held - offset)) return std::nullopt;
    return not_ranged(offset, size, held);
  }

 private:
  // Up to kHttpMaxAttempts tries of one ranged GET; fills `out` from `first`
  // (a short answer only where the file ends, which `t` then says).
  // `whole_ok`: a 200 is taken (its start, see on_whole_body).
  Result<Unit, IoError> request(std::uint64_t first, std::span<std::uint8_t> out, Transfer& t,
                                bool whole_ok = false) const {
    IoError last{""};
    for (int attempt = 1; attempt <= kHttpMaxAttempts; ++attempt) {
      if (attempt > 1) std::this_thread::sleep_for(std::chrono::milliseconds(kHttpRetryDelayMs * (attempt - 1)));
      t = Transfer{};
      t.first = first;
      t.out = out;
      t.whole_ok = whole_ok;
      bool transient = false;
      auto r = attempt_once(t, transient);
      if (r) return r;
      last = r.error();
      if (!transient) break;
    }
    return last;
  }

  Result<Unit, IoError> attempt_once(Transfer& t, bool& transient) const {
    if (!curl_) return IoError{"cannot start libcurl"};
    const Timeouts to = timeouts();
    const std::string range = asked(t).substr(6);
    std::array<char, CURL_ERROR_SIZE>& buf = errbuf_;
    buf.fill('\0');
    const char* errbuf = buf.data();
    CURL* c = curl_;
    lib_.easy_reset(c);  // keeps the connection, forgets the last request's options
    set(c, CURLOPT_URL, url_.c_str());
    set(c, CURLOPT_PROTOCOLS_STR, "http,https");
    set(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    set(c, CURLOPT_FOLLOWLOCATION, 1L);
    set(c, CURLOPT_MAXREDIRS, static_cast<long>(kHttpMaxRedirects));
    set(c, CURLOPT_CONNECTTIMEOUT_MS, to.connect_ms);
    set(c, CURLOPT_TIMEOUT_MS, to.total_ms);
    set(c, CURLOPT_NOSIGNAL, 1L);
    set(c, CURLOPT_RANGE, range.c_str());
    set(c, CURLOPT_USERAGENT, "safespec");
    set(c, CURLOPT_ERRORBUFFER, buf.data());
    set(c, CURLOPT_HEADERFUNCTION, on_header);
    set(c, CURLOPT_HEADERDATA, static_cast<void*>(&t));
    set(c, CURLOPT_WRITEFUNCTION, on_body);
    set(c, CURLOPT_WRITEDATA, static_cast<void*>(&t));
    g_requests.fetch_add(1, std::memory_order_relaxed);
    const CURLcode res = lib_.easy_perform(c);
    if (t.whole_done) return Unit{};  // the start of a 200, the rest refused on purpose
    if (!t.refusal.empty()) {
      transient = t.transient;
      return IoError{t.refusal};
    }
    if (res == CURLE_WRITE_ERROR && t.past_end) return Unit{};  // stopped at a 416's headers
    const auto truncated = [&] {
      return IoError{"truncated body: expected " + std::to_string(expected(t)) + " bytes ('Range: " + asked(t) +
                     "'), received " + std::to_string(t.received)};
    };
    if (res == CURLE_PARTIAL_FILE) {
      transient = true;
      return truncated();
    }
    if (res == CURLE_OPERATION_TIMEDOUT) {
      transient = true;
      return IoError{"no complete answer within " + std::to_string(to.total_ms) + " ms"};
    }
    if (res == CURLE_TOO_MANY_REDIRECTS)
      return IoError{"more than " + std::to_string(kHttpMaxRedirects) + " redirects"};
    if (res == CURLE_UNSUPPORTED_PROTOCOL)  // the first URL is http(s) (is_url), so a redirect left them
      return IoError{"a redirect to a URL that is not http:// or https:// (" + t.location + ")"};
    if (res != CURLE_OK) {
      transient = transient_code(res);
      return IoError{std::string("cannot read the URL: ") + (errbuf[0] ? errbuf : lib_.easy_strerror(res))};
    }
    if (t.whole) return Unit{};  // the whole file was shorter than the start wanted
    if (t.status != 206) return IoError{"the server answered HTTP " + std::to_string(t.status)};
    if (t.received < expected(t)) return truncated();
    return Unit{};
  }

  // The body's length that the final 206's Content-Range announced.
  static std::uint64_t expected(const Transfer& t) {
    if (!t.range || !t.range->first || !t.range->last) return t.out.size();
    return *t.range->last - *t.range->first + 1;
  }

  template <typename V>
  void set(CURL* c, CURLoption option, V value) const {
    lib_.easy_setopt(c, option, value);
  }

  const Curl& lib_;
  std::string url_;
  CURL* curl_;
  // curl writes its message here until the handle is reset or cleaned up.
  mutable std::array<char, CURL_ERROR_SIZE> errbuf_{};
  std::shared_ptr<const Head> head_;
};

}  // namespace

HttpCounters http_counters() {
  return HttpCounters{g_requests.load(std::memory_order_relaxed), g_body_bytes.load(std::memory_order_relaxed),
                      g_urls.load(std::memory_order_relaxed)};
}

Result<ByteFile, IoError> open_url(const std::string& url) {
  auto lib = curl_lib();
  if (!lib) return lib.error();
  // The checker may open a file again right after reading its header (for
  // its hint, or --data): the heads of the latest kHttpHeadsKept URLs are
  // kept (one per thread that reads URLs at once), so that costs no second
  // request and memory stays a few heads.
  static std::mutex mutex;
  static std::deque<std::pair<std::string, std::shared_ptr<const Head>>> kept;
  auto source = std::make_shared<HttpSource>(*lib.value(), url);
  {
    std::lock_guard lock(mutex);
    for (const auto& [kept_url, head] : kept)
      if (kept_url == url) source->start_from(head);
  }
  if (!source->head()) {
    if (auto r = source->start(); !r) return r.error();
    g_urls.fetch_add(1, std::memory_order_relaxed);
    std::lock_guard lock(mutex);
    kept.emplace_back(url, source->head());
    if (kept.size() > kHttpHeadsKept) kept.pop_front();
  }
  const std::uint64_t size = source->size();
  return ByteFile::over(std::move(source), size);
}

}  // namespace safespec
