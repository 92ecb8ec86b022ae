// `conformance run --junit FILE`: the run as JUnit XML, the format CI systems
// (GitLab, Jenkins, GitHub's test reporters) read: one <testcase> per file.
#include <cstdio>

#include "conformance/runner.hpp"
#include "spec/utf8.hpp"

namespace safespec::conformance {

namespace {

// XML 1.0 character data: markup characters as entities; bytes XML cannot
// carry (controls other than tab, newline and CR; invalid UTF-8) as \xNN, so
// an implementation's arbitrary output never makes the document unreadable.
std::string xml(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size();) {
    const auto u = static_cast<unsigned char>(s[i]);
    const std::size_t n = utf8_sequence_length(s, i);
    if (n > 1) {
      out.append(s.substr(i, n));
      i += n;
      continue;
    }
    switch (s[i]) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        if (n == 1 && (u >= 0x20 || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') && u != 0x7f) {
          out += s[i];
        } else {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\x%02x", u);
          out += buf;
        }
    }
    ++i;
  }
  return out;
}

std::string seconds(double s) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.3f", s);
  return buf;
}

std::string got(const ChildResult& c, double timeout_s) {
  switch (c.end) {
    case ChildResult::End::Exited: return "exit status " + std::to_string(c.code);
    case ChildResult::End::Signaled: return "killed by " + signal_name(c.signal);
    case ChildResult::End::TimedOut: return "no exit within " + seconds(timeout_s) + " s";
  }
  return "";
}

// The body of a failure: what the file tests, then what was printed.
std::string details(const FileOutcome& f) {
  std::string rules;
  for (const std::string& r : f.entry.rules) rules += (rules.empty() ? " [" : ", ") + r;
  if (!rules.empty()) rules += "]";
  std::string out = f.entry.description + rules + "\n";
  if (!f.entry.sglang_message.empty()) out += "sglang: " + f.entry.sglang_message + "\n";
  if (!f.child.output.empty()) out += "printed:\n" + f.child.output + (f.child.output_truncated ? "...\n" : "");
  return xml(out);
}

}  // namespace

std::string render_run_junit(const RunReport& r) {
  std::size_t failures = 0, errors = 0, skipped = 0;
  double total = 0;
  std::string cases;
  const std::string suite = "safespec conformance " + std::string(profile_name(r.profile));
  for (const FileOutcome& f : r.files) {
    total += f.child.seconds;
    cases += "    <testcase classname=\"" + xml(suite) + "\" name=\"" + xml(f.entry.file) + "\" time=\"" +
             seconds(f.child.seconds) + "\"";
    const std::string message = "expected " + std::string(expect_word(f.expected)) + ", got " + got(f.child, r.timeout_s);
    if (f.agreement == Agreement::Agrees) {
      cases += "/>\n";
      continue;
    }
    if (!counts(r, f)) {
      ++skipped;
      cases += ">\n      <skipped message=\"" +
               xml("impldef (reported, not counted; --impldef fail counts it): " + message) + "\"/>\n    </testcase>\n";
      continue;
    }
    const bool error = f.agreement == Agreement::Crashed || f.agreement == Agreement::TimedOut;
    (error ? errors : failures) += 1;
    const std::string tag = error ? "error" : "failure";
    cases += ">\n      <" + tag + " message=\"" + xml(message) + "\" type=\"" +
             std::string(agreement_key(f.agreement)) + "\">" + details(f) + "</" + tag + ">\n    </testcase>\n";
  }
  const std::string counts_text = " tests=\"" + std::to_string(r.files.size()) + "\" failures=\"" +
                                  std::to_string(failures) + "\" errors=\"" + std::to_string(errors) +
                                  "\" skipped=\"" + std::to_string(skipped) + "\" time=\"" + seconds(total) + "\"";
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites" + counts_text + ">\n  <testsuite name=\"" +
         xml(suite) + "\"" + counts_text + ">\n" + cases + "  </testsuite>\n</testsuites>\n";
}

}  // namespace safespec::conformance
