// The tally of a conformance run and its two renderings (text and JSON).
#include <algorithm>
#include <cstdio>

#include "conformance/runner.hpp"
#include "src/report/json_escape.hpp"

namespace safespec::conformance {

namespace {

// Descriptions and messages on one line each: control bytes escaped.
std::string one_line(std::string_view s) {
  std::string out;
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (c == '\r') out += "\\r";
    else if (u < 0x20 || u == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", u);
      out += buf;
    } else {
      out += c;
    }
  }
  return out;
}

std::string number(double v, const char* format) {
  char buf[40];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

// What the implementation did, in words.
std::string what_happened(const ChildResult& c, double timeout_s) {
  switch (c.end) {
    case ChildResult::End::Exited: return "exit status " + std::to_string(c.code);
    case ChildResult::End::Signaled: return "killed by " + signal_name(c.signal);
    case ChildResult::End::TimedOut: return "no exit within " + number(timeout_s, "%g") + " s";
  }
  return "";
}

std::string_view got_word(const ChildResult& c) {
  switch (c.end) {
    case ChildResult::End::Exited: return c.code == 0 ? "accept" : "reject";
    case ChildResult::End::Signaled: return "crash";
    case ChildResult::End::TimedOut: return "timeout";
  }
  return "";
}

bool shows_message(const RunReport& r, const FileOutcome& f) {
  return r.profile == Profile::Sglang && f.expected == Expect::Reject && !f.entry.sglang_message.empty();
}

std::string pad_right(std::string s, std::size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s;
}

std::string pad_left(const std::string& s, std::size_t width) {
  return s.size() < width ? std::string(width - s.size(), ' ') + s : s;
}

// The first lines the implementation printed (stdout and stderr together),
// where a maintainer looks first for why it disagreed.
std::string printed(const ChildResult& c) {
  constexpr std::size_t kLines = 3;
  std::string out;
  std::size_t at = 0, lines = 0;
  while (at < c.output.size() && lines < kLines) {
    const std::size_t end = std::min(c.output.find('\n', at), c.output.size());
    out += "    printed: " + one_line(std::string_view(c.output).substr(at, end - at)) + "\n";
    at = end + 1;
    ++lines;
  }
  if (at < c.output.size() || c.output_truncated) out += "    printed: ...\n";
  return out;
}

}  // namespace

std::string_view agreement_title(Agreement a) {
  switch (a) {
    case Agreement::Agrees: return "agrees";
    case Agreement::AcceptsReject: return "accepts what it should reject";
    case Agreement::RejectsAccept: return "rejects what it should accept";
    case Agreement::Crashed: return "crashed";
    case Agreement::TimedOut: return "timed out";
  }
  return "";
}

std::string_view agreement_key(Agreement a) {
  switch (a) {
    case Agreement::Agrees: return "agrees";
    case Agreement::AcceptsReject: return "accepts_reject";
    case Agreement::RejectsAccept: return "rejects_accept";
    case Agreement::Crashed: return "crashed";
    case Agreement::TimedOut: return "timed_out";
  }
  return "";
}

Agreement classify(Expect expected, const ChildResult& child) {
  switch (child.end) {
    case ChildResult::End::Signaled: return Agreement::Crashed;
    case ChildResult::End::TimedOut: return Agreement::TimedOut;
    case ChildResult::End::Exited: break;
  }
  const bool accepted = child.code == 0;
  if (accepted == (expected == Expect::Accept)) return Agreement::Agrees;
  return accepted ? Agreement::AcceptsReject : Agreement::RejectsAccept;
}

bool is_impldef(const Case& c) { return c.file.rfind("impldef_", 0) == 0; }

bool counts(const RunReport& r, const FileOutcome& f) { return r.impldef == ImpldefMode::Fail || !is_impldef(f.entry); }

bool run_passes(const RunReport& r) {
  return std::all_of(r.files.begin(), r.files.end(),
                     [&](const FileOutcome& f) { return !counts(r, f) || f.agreement == Agreement::Agrees; });
}

std::string render_run_text(const RunReport& r) {
  std::array<std::size_t, kAgreements.size()> count{}, impldef{};
  for (const FileOutcome& f : r.files) {
    ++count[static_cast<std::size_t>(f.agreement)];
    if (is_impldef(f.entry)) ++impldef[static_cast<std::size_t>(f.agreement)];
  }
  std::string out = "profile " + std::string(profile_name(r.profile)) + (r.version.empty() ? "" : " (" + r.version + ")") +
                    ": " + std::to_string(r.files.size()) +
                    (r.files.size() == 1 ? " file" : " files") + ", timeout " + number(r.timeout_s, "%g") + " s";
  if (r.not_selected) out += "; " + std::to_string(r.not_selected) + " more not selected";
  out += "\n";
  constexpr std::size_t kTitle = 30, kNumber = 7;
  out += pad_right("class", kTitle) + pad_left("files", kNumber) + pad_left("impldef", kNumber + 2) + "\n";
  for (const Agreement a : kAgreements) {
    const auto i = static_cast<std::size_t>(a);
    out += pad_right(std::string(agreement_title(a)), kTitle) + pad_left(std::to_string(count[i]), kNumber) +
           pad_left(std::to_string(impldef[i]), kNumber + 2) + "\n";
  }
  for (const Agreement a : kAgreements) {
    const auto i = static_cast<std::size_t>(a);
    if (a == Agreement::Agrees || count[i] == 0) continue;
    out += "\n" + std::string(agreement_title(a)) + " (" + std::to_string(count[i]) + "):\n";
    for (const FileOutcome& f : r.files) {
      if (f.agreement != a) continue;
      out += "  " + one_line(f.entry.file) + (is_impldef(f.entry) ? " [impldef]" : "") + ": expected " +
             std::string(expect_word(f.expected)) + ", got " + what_happened(f.child, r.timeout_s) + "\n";
      std::string rules;
      for (const std::string& rule : f.entry.rules) rules += (rules.empty() ? " [" : ", ") + rule;
      if (!rules.empty()) rules += "]";
      out += "    " + one_line(f.entry.description) + one_line(rules) + "\n";
      if (shows_message(r, f)) out += "    sglang: " + one_line(f.entry.sglang_message) + "\n";
      out += printed(f.child);
    }
  }
  std::size_t counted = 0, counted_agree = 0, reported = 0, reported_agree = 0;
  for (const FileOutcome& f : r.files) {
    const bool agrees = f.agreement == Agreement::Agrees;
    if (counts(r, f)) ++counted, counted_agree += agrees;
    else ++reported, reported_agree += agrees;
  }
  if (counted_agree == counted) {
    out += "\nok: agrees on all " + std::to_string(counted) + (counted == 1 ? " file" : " files");
  } else {
    out += "\nFAIL: disagrees on " + std::to_string(counted - counted_agree) + " of " + std::to_string(counted) +
           (counted == 1 ? " file" : " files");
  }
  if (reported)
    out += "; impldef files (reported, not counted; --impldef fail counts them): " + std::to_string(reported_agree) +
           " of " + std::to_string(reported) + " agree";
  return out + "\n";
}

std::string render_run_json(const RunReport& r) {
  std::array<std::size_t, kAgreements.size()> count{};
  for (const FileOutcome& f : r.files) ++count[static_cast<std::size_t>(f.agreement)];
  std::string out = "{\"schema\":" + std::to_string(kJsonSchema) + ",\"profile\":";
  append_json_string(out, profile_name(r.profile));
  if (!r.version.empty()) {
    out += ",\"version\":";
    append_json_string(out, r.version);
  }
  out += ",\"suite\":";
  append_json_string(out, r.suite);
  out += ",\"impl\":";
  append_json_string(out, r.impl);
  out += ",\"timeout_s\":" + number(r.timeout_s, "%g") + ",\"impldef\":\"" + std::string(impldef_mode_name(r.impldef)) +
         "\",\"not_selected\":" + std::to_string(r.not_selected) + ",\"counts\":{";
  for (const Agreement a : kAgreements) {
    if (a != Agreement::Agrees) out += ",";
    append_json_string(out, agreement_key(a));
    out += ":" + std::to_string(count[static_cast<std::size_t>(a)]);
  }
  out += "},\"files\":[";
  for (std::size_t i = 0; i < r.files.size(); ++i) {
    const FileOutcome& f = r.files[i];
    out += i ? ",\n{\"file\":" : "\n{\"file\":";
    append_json_string(out, f.entry.file);
    out += is_impldef(f.entry) ? ",\"impldef\":true" : ",\"impldef\":false";
    out += counts(r, f) ? ",\"counted\":true,\"description\":" : ",\"counted\":false,\"description\":";
    append_json_string(out, f.entry.description);
    out += ",\"rules\":[";
    for (std::size_t k = 0; k < f.entry.rules.size(); ++k) {
      if (k) out += ",";
      append_json_string(out, f.entry.rules[k]);
    }
    out += "]";
    out += ",\"expected\":\"" + std::string(expect_word(f.expected)) + "\"";
    if (shows_message(r, f)) {
      out += ",\"sglang_message\":";
      append_json_string(out, f.entry.sglang_message);
    }
    out += ",\"got\":\"" + std::string(got_word(f.child)) + "\",\"class\":\"" +
           std::string(agreement_key(f.agreement)) + "\"";
    out += ",\"exit\":" + (f.child.end == ChildResult::End::Exited ? std::to_string(f.child.code) : "null");
    out += ",\"signal\":" + (f.child.end == ChildResult::End::Signaled ? std::to_string(f.child.signal) : "null");
    out += ",\"seconds\":" + number(f.child.seconds, "%.3f") + ",\"output\":";
    append_json_string(out, f.child.output);
    out += f.child.output_truncated ? ",\"output_truncated\":true}" : ",\"output_truncated\":false}";
  }
  out += "\n]}\n";
  return out;
}

std::string progress_bar(std::size_t done, std::size_t total, std::size_t width) {
  const std::size_t filled = total == 0 || done >= total ? width : done * width / total;
  return "[" + std::string(filled, '#') + std::string(width - filled, '.') + "] " + std::to_string(done) + "/" +
         std::to_string(total);
}

}  // namespace safespec::conformance
