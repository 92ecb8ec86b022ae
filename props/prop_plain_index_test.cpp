// The plain reader of model.safetensors.index.json (src/parse/plain_index.hpp)
// against simdjson's DOM (parse_shard_index_dom). The laws: on any text,
// parse_shard_index gives exactly what the DOM gives (the same index, or the
// same ST-INDEX-JSON error), whether the plain reader decided it or not; and
// the plain reader decides every text written as exporters write it, so the
// first law is about the reader `check` runs, not only the fallback.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "props/catch.hpp"
#include "spec/index_rules.hpp"
#include "src/parse/plain_index.hpp"
#include "src/parse/shard_index.hpp"

using namespace safespec;

namespace {

// An index text and whether it is written as an exporter writes it (then the
// plain reader must decide it).
struct IndexText {
  std::string text;
  bool plain = true;
};

// Whitespace between tokens: none mostly, JSON's four, or a byte JSON does
// not allow there.
std::string gap(IndexText& t) {
  switch (*rc::gen::inRange(0, 12)) {
    case 0: return " ";
    case 1: return "\n  ";
    case 2: return "\t\r\n";
    case 3:
      if (*rc::gen::inRange(0, 16) == 0) {
        t.plain = false;
        return "\f";
      }
      return " ";
    default: return "";
  }
}

// A name: few of them (repeats are common), now and then with an escape, a
// non-ASCII letter, a raw control byte or a byte that is no UTF-8.
std::string name(IndexText& t, const char* prefix, int count) {
  std::string n = prefix + std::to_string(*rc::gen::inRange(0, count));
  switch (*rc::gen::inRange(0, 100)) {
    case 0: t.plain = false; return n + "\\u0041";
    case 1: t.plain = false; return n + "\\\"";
    case 2: return n + "\xc3\xa9";  // é: plain, UTF-8
    case 3: t.plain = false; return n + "\x01";
    case 4: t.plain = false; return n + "\xc3";
    default: return n;
  }
}

std::string shard_name(IndexText& t) {
  switch (*rc::gen::inRange(0, 16)) {
    case 0: return "../up.safetensors";
    case 1: return "sub/s.safetensors";
    case 2: return "..";
    case 3: return "";
    default: return name(t, "model-", 4) + ".safetensors";
  }
}

std::string weight_map(IndexText& t) {
  std::string out = "{";
  const int n = *rc::gen::inRange(0, 10);
  for (int i = 0; i < n; ++i) {
    out += (i ? "," : "") + gap(t) + "\"" + name(t, "t", 10) + "\"" + gap(t) + ":" + gap(t);
    switch (*rc::gen::inRange(0, 80)) {
      case 0: t.plain = false; out += "7"; break;
      case 1: t.plain = false; out += "null"; break;
      default: out += "\"" + shard_name(t) + "\"";
    }
  }
  return out + gap(t) + "}";
}

std::string metadata(IndexText& t) {
  std::string out = "{";
  const int n = *rc::gen::inRange(0, 4);
  bool had_total = false;
  for (int i = 0; i < n; ++i) {
    const bool total = *rc::gen::inRange(0, 2) == 0;
    if (total && had_total) t.plain = false;  // total_size twice: the DOM takes the first
    had_total |= total;
    out += (i ? "," : "") + gap(t) + "\"" + (total ? std::string("total_size") : name(t, "k", 3)) + "\":" + gap(t);
    switch (*rc::gen::inRange(0, 24)) {
      case 0: t.plain = false; out += "1.5"; break;
      case 1: t.plain = false; out += "-3"; break;
      case 2: t.plain = false; out += "18446744073709551616"; break;
      case 3: t.plain = false; out += "{\"a\":[1]}"; break;
      case 4:
        if (total) t.plain = false;
        out += "\"12\"";
        break;
      case 6:  // a string value the plain reader decodes (its escapes) or declines (bad UTF-8, a lone surrogate)
        if (total) t.plain = false;
        switch (*rc::gen::inRange(0, 5)) {
          case 0: out += "\"a\\n\\u00e9\\/\""; break;
          case 1: out += "\"\\ud83d\\ude00\""; break;
          case 2: t.plain = false; out += "\"\\ud83d\""; break;
          case 3: t.plain = false; out += "\"\xed\xa0\x80\""; break;
          default: out += "\"\xf0\x9f\x98\x80\""; break;
        }
        break;
      case 7: out += "0"; break;
      case 5: out += "18446744073709551615"; break;
      default: out += std::to_string(*rc::gen::inRange(0, 100000)); break;
    }
  }
  return out + gap(t) + "}";
}

IndexText index_text() {
  IndexText t;
  std::vector<std::pair<std::string, std::string>> members;
  members.emplace_back("weight_map", weight_map(t));
  if (*rc::gen::inRange(0, 4) != 0) members.emplace_back("metadata", metadata(t));
  switch (*rc::gen::inRange(0, 24)) {
    case 0: t.plain = false; members.emplace_back("weight_map", weight_map(t)); break;  // twice
    case 1: t.plain = false; members.emplace_back("format", "\"pt\""); break;
    case 2: t.plain = false; members.erase(members.begin()); break;  // no weight_map
    default: break;
  }
  if (members.size() > 1 && *rc::gen::inRange(0, 2) == 0) std::swap(members.front(), members.back());
  t.text = gap(t) + "{";
  for (std::size_t i = 0; i < members.size(); ++i)
    t.text += (i ? "," : "") + gap(t) + "\"" + members[i].first + "\"" + gap(t) + ":" + gap(t) + members[i].second;
  t.text += gap(t) + "}" + gap(t);
  if (*rc::gen::inRange(0, 24) == 0) {
    t.plain = false;
    t.text += "x";
  }
  return t;
}

}  // namespace

TEST_CASE("plain index reader: what simdjson's DOM gives, and it decides what exporters write",
          "[prop][ST-INDEX-JSON]") {
  rc::prop("generated index texts", [] {
    const IndexText t = index_text();
    RC_LOG() << t.text;
    const std::optional<Result<ShardIndex>> plain = read_plain_index(t.text);
    const Result<ShardIndex> dom = parse_shard_index_dom(t.text);
    const bool plain_agrees = !plain || *plain == dom;  // Result's ==: the same index, or the same error
    RC_ASSERT(plain_agrees);
    const bool parse_agrees = parse_shard_index(t.text) == dom;
    RC_ASSERT(parse_agrees);
    if (t.plain) RC_ASSERT(plain.has_value());
    RC_TAG(plain ? (plain->ok() ? "plain, accepted" : "plain, refused") : "DOM");
  });
  rc::prop("one byte changed, inserted or removed", [] {
    std::string text = index_text().text;
    const std::size_t at = *rc::gen::inRange<std::size_t>(0, text.size() + 1);
    const char byte = *rc::gen::element('"', ':', ',', '{', '}', '[', '\\', ' ', '0', 'a', '\x80', '\0');
    switch (*rc::gen::inRange(0, 3)) {
      case 0: if (at < text.size()) text[at] = byte; break;
      case 1: text.insert(text.begin() + static_cast<std::ptrdiff_t>(at), byte); break;
      default: if (at < text.size()) text.erase(at, 1); break;
    }
    RC_LOG() << text;
    const std::optional<Result<ShardIndex>> plain = read_plain_index(text);
    const bool plain_agrees = !plain || *plain == parse_shard_index_dom(text);
    RC_ASSERT(plain_agrees);
  });
}
