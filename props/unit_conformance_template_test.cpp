// The --impl template of the conformance runners:
// split into words as a shell would, placeholders substituted inside words,
// and refused where a shell would have done something the runner does not.
#include <string>
#include <vector>

#include "conformance/command_template.hpp"
#include "props/catch.hpp"

using namespace safespec::conformance;
using Words = std::vector<std::string>;

namespace {

Words split_ok(const std::string& t) {
  auto r = split_command(t);
  INFO(t);
  REQUIRE(r.ok());
  return r.value();
}

std::string split_error(const std::string& t) {
  auto r = split_command(t);
  INFO(t);
  REQUIRE_FALSE(r.ok());
  return r.error();
}

}  // namespace

TEST_CASE("conformance template: blanks separate words, quotes and backslashes join them", "[conformance]") {
  CHECK(split_ok("  loader   --strict\t{file}\n") == Words{"loader", "--strict", "{file}"});
  CHECK(split_ok("'my loader' \"{file}\"") == Words{"my loader", "{file}"});
  CHECK(split_ok("a'b c'\"d e\"f") == Words{"ab cd ef"});
  CHECK(split_ok("x '' \"\"") == Words{"x", "", ""});
  CHECK(split_ok(R"(a\ b c\\d \'e)") == Words{"a b", "c\\d", "'e"});
  CHECK(split_ok("a\\\nb") == Words{"ab"});
  // Inside double quotes a backslash escapes only $ ` " \ and newline.
  CHECK(split_ok(R"("\$HOME \" \\ \n")") == Words{"$HOME \" \\ \\n"});
  // Inside single quotes nothing is special, not even a backslash.
  CHECK(split_ok(R"('a\' b)") == Words{"a\\", "b"});
  // Quoted, the shell's operators are plain characters.
  CHECK(split_ok("sh -c 'cat \"$1\" | wc -c > /dev/null' sh {file}") ==
        Words{"sh", "-c", "cat \"$1\" | wc -c > /dev/null", "sh", "{file}"});
  CHECK(split_ok(R"(tool a\|b)") == Words{"tool", "a|b"});
}

TEST_CASE("conformance template: refused where a shell would differ", "[conformance]") {
  CHECK(split_error("") == "expected a command in the template, found only blanks");
  CHECK(split_error(" \t ") == "expected a command in the template, found only blanks");
  CHECK(split_error("tool 'x") == "expected a closing ' for the quote at byte 5 of the template");
  CHECK(split_error("tool \"x") == "expected a closing \" for the quote at byte 5 of the template");
  CHECK(split_error("tool \"x\\\"") == "expected a closing \" for the quote at byte 5 of the template");
  CHECK(split_error("tool x\\") == "expected a character after the backslash at the end of the template");
  const std::string why =
      " of the template: the command runs without a shell, so pipes, redirections and variables need sh -c '...' "
      "(or quote the character to pass it on literally)";
  CHECK(split_error("cat {file} | wc") == "found an unquoted '|' at byte 11" + why);
  CHECK(split_error("tool {file} >/dev/null") == "found an unquoted '>' at byte 12" + why);
  CHECK(split_error("$HOME/tool {file}") == "found an unquoted '$' at byte 0" + why);
  for (const char* t : {"a;b", "a&b", "a<b", "(a)", "`a`"}) CHECK_FALSE(split_command(t).ok());
}

TEST_CASE("conformance template: placeholders are replaced inside words, others left alone", "[conformance]") {
  const Words words{"tool", "--in={input}", "{output}", "{file}{file}", "{}", "{nope}", "{input", "{"};
  const Words out = substitute(words, {{"input", "/a b/x.safetensors"}, {"output", "/o"}, {"file", "F"}});
  CHECK(out == Words{"tool", "--in=/a b/x.safetensors", "/o", "FF", "{}", "{nope}", "{input", "{"});
  CHECK(mentions(words, "file"));
  CHECK(mentions(words, "input"));
  CHECK_FALSE(mentions(words, "layer"));
  CHECK_FALSE(mentions(Words{"{file"}, "file"));
}
