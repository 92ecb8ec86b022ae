// The --impl template of `safespec conformance run|numeric`: split into words
// as a POSIX shell splits a simple command (quotes and backslashes only), then
// run directly, without a shell, so that a signal that kills the
// implementation is seen as that signal and not as a shell's exit status 128+N.
// Pipes, redirections, variables and globs are not the runner's business:
// a template that needs them says so with `sh -c '...'`.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "spec/result.hpp"

namespace safespec::conformance {

// Words of `text`: blanks (space, tab, newline) separate words outside
// quotes; '...' keeps every byte literally; "..." keeps every byte but lets a
// backslash escape $ ` " \ and newline; outside quotes a backslash escapes
// the next byte (backslash-newline joins lines). Errors: an unterminated
// quote, a trailing backslash, no words at all, and an unquoted shell
// operator or expansion character (| & ; < > ( ) $ `), which would mean
// something to a shell but is passed on literally here.
Result<std::vector<std::string>, std::string> split_command(std::string_view text);

// Every occurrence of each `{name}` in every word replaced by its value.
// Braces that name no placeholder are left as they are.
using Placeholders = std::vector<std::pair<std::string, std::string>>;  // {"file", "/abs/x"}
std::vector<std::string> substitute(const std::vector<std::string>& words, const Placeholders& values);

// True when some word contains `{name}`.
bool mentions(const std::vector<std::string>& words, std::string_view name);

}  // namespace safespec::conformance
