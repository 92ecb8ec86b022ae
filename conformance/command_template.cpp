#include "conformance/command_template.hpp"

namespace safespec::conformance {

namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\n'; }

// Characters a shell would act on when unquoted; here they would silently
// become arguments, so the template is refused instead.
bool is_shell_operator(char c) {
  switch (c) {
    case '|': case '&': case ';': case '<': case '>': case '(': case ')': case '$': case '`': return true;
    default: return false;
  }
}

Result<std::vector<std::string>, std::string> fail(std::string what) { return what; }

}  // namespace

Result<std::vector<std::string>, std::string> split_command(std::string_view t) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;  // a word has begun (an empty '' is still a word)
  std::size_t i = 0;
  while (i < t.size()) {
    const char c = t[i];
    if (is_blank(c)) {
      if (in_word) words.push_back(std::move(word)), word.clear(), in_word = false;
      ++i;
    } else if (c == '\\') {
      if (i + 1 == t.size()) return fail("expected a character after the backslash at the end of the template");
      if (t[i + 1] != '\n') word += t[i + 1], in_word = true;  // backslash-newline: a line continuation
      i += 2;
    } else if (c == '\'') {
      const std::size_t end = t.find('\'', i + 1);
      if (end == std::string_view::npos)
        return fail("expected a closing ' for the quote at byte " + std::to_string(i) + " of the template");
      word.append(t.substr(i + 1, end - i - 1));
      in_word = true;
      i = end + 1;
    } else if (c == '"') {
      std::size_t j = i + 1;
      for (;; ++j) {
        if (j >= t.size())
          return fail("expected a closing \" for the quote at byte " + std::to_string(i) + " of the template");
        if (t[j] == '"') break;
        if (t[j] == '\\' && j + 1 < t.size() &&
            (t[j + 1] == '$' || t[j + 1] == '`' || t[j + 1] == '"' || t[j + 1] == '\\' || t[j + 1] == '\n')) {
          if (t[j + 1] != '\n') word += t[j + 1];
          ++j;
          continue;
        }
        word += t[j];
      }
      in_word = true;
      i = j + 1;
    } else if (is_shell_operator(c)) {
      return fail(std::string("found an unquoted '") + c + "' at byte " + std::to_string(i) +
                  " of the template: the command runs without a shell, so pipes, redirections and variables need "
                  "sh -c '...' (or quote the character to pass it on literally)");
    } else {
      word += c;
      in_word = true;
      ++i;
    }
  }
  if (in_word) words.push_back(std::move(word));
  if (words.empty()) return fail("expected a command in the template, found only blanks");
  return words;
}

std::vector<std::string> substitute(const std::vector<std::string>& words, const Placeholders& values) {
  std::vector<std::string> out;
  out.reserve(words.size());
  for (const std::string& w : words) {
    std::string r;
    std::size_t i = 0;
    while (i < w.size()) {
      bool replaced = false;
      if (w[i] == '{') {
        for (const auto& [name, value] : values) {
          if (w.compare(i + 1, name.size(), name) == 0 && i + 1 + name.size() < w.size() &&
              w[i + 1 + name.size()] == '}') {
            r += value;
            i += name.size() + 2;
            replaced = true;
            break;
          }
        }
      }
      if (!replaced) r += w[i++];
    }
    out.push_back(std::move(r));
  }
  return out;
}

bool mentions(const std::vector<std::string>& words, std::string_view name) {
  const std::string braced = "{" + std::string(name) + "}";
  for (const std::string& w : words)
    if (w.find(braced) != std::string::npos) return true;
  return false;
}

}  // namespace safespec::conformance
