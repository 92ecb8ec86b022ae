// safespec::py::loads, py_equal and py_int against CPython 3.11.7's
// json.loads(bytes), == and int() (comfy-quant-markers.md §1.1 M3, §6 items
// 10-11, G19, G20). Every expected value and message below was printed by
// python3.11.7: repr(json.loads(b)), or type(e).__name__ and str(e), with
// e.pos/e.lineno/e.colno for JSONDecodeError and the byte offset of e.pos.
#include <cmath>
#include <string>
#include <string_view>
#include <variant>

#include "props/catch.hpp"
#include "spec/python/python_json.hpp"

using namespace std::string_view_literals;
namespace py = safespec::py;

namespace {

struct LoadCase {
  std::string_view input;  // the bytes given to json.loads
  std::string_view kind;   // "OK" or the exception's class name
  std::string_view text;   // repr(result) or str(exception)
  std::size_t offset, pos, lineno, colno;
};

const LoadCase kLoadCases[] = {
    {"null"sv, "OK", "None"sv, 0, 0, 0, 0},
    {"true"sv, "OK", "True"sv, 0, 0, 0, 0},
    {"false"sv, "OK", "False"sv, 0, 0, 0, 0},
    {"NaN"sv, "OK", "nan"sv, 0, 0, 0, 0},
    {"Infinity"sv, "OK", "inf"sv, 0, 0, 0, 0},
    {"-Infinity"sv, "OK", "-inf"sv, 0, 0, 0, 0},
    {" \011\015\012 1 \012"sv, "OK", "1"sv, 0, 0, 0, 0},
    {"-0"sv, "OK", "0"sv, 0, 0, 0, 0},
    {"-0.0"sv, "OK", "-0.0"sv, 0, 0, 0, 0},
    {"1.0"sv, "OK", "1.0"sv, 0, 0, 0, 0},
    {"1e5"sv, "OK", "100000.0"sv, 0, 0, 0, 0},
    {"1E+2"sv, "OK", "100.0"sv, 0, 0, 0, 0},
    {"1e-400"sv, "OK", "0.0"sv, 0, 0, 0, 0},
    {"-1e-400"sv, "OK", "-0.0"sv, 0, 0, 0, 0},
    {"1e400"sv, "OK", "inf"sv, 0, 0, 0, 0},
    {"-1e400"sv, "OK", "-inf"sv, 0, 0, 0, 0},
    {"0.1"sv, "OK", "0.1"sv, 0, 0, 0, 0},
    {"10000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000.5"sv, "OK", "inf"sv, 0, 0, 0, 0},
    {"5e-324"sv, "OK", "5e-324"sv, 0, 0, 0, 0},
    {"3e-324"sv, "OK", "5e-324"sv, 0, 0, 0, 0},
    {"2e-324"sv, "OK", "0.0"sv, 0, 0, 0, 0},
    {"1.7976931348623157e308"sv, "OK", "1.7976931348623157e+308"sv, 0, 0, 0, 0},
    {"1.7976931348623159e308"sv, "OK", "inf"sv, 0, 0, 0, 0},
    {"1e999999999999999999999"sv, "OK", "inf"sv, 0, 0, 0, 0},
    {"123456789012345678901234567890"sv, "OK", "123456789012345678901234567890"sv, 0, 0, 0, 0},
    {"-18446744073709551615"sv, "OK", "-18446744073709551615"sv, 0, 0, 0, 0},
    {"18446744073709551615"sv, "OK", "18446744073709551615"sv, 0, 0, 0, 0},
    {"18446744073709551616"sv, "OK", "18446744073709551616"sv, 0, 0, 0, 0},
    {"-18446744073709551616"sv, "OK", "-18446744073709551616"sv, 0, 0, 0, 0},
    {"9223372036854775808"sv, "OK", "9223372036854775808"sv, 0, 0, 0, 0},
    {"\042abc\042"sv, "OK", "'abc'"sv, 0, 0, 0, 0},
    {"\042\134u00e9\042"sv, "OK", "'\303\251'"sv, 0, 0, 0, 0},
    {"\042\303\251\042"sv, "OK", "'\303\251'"sv, 0, 0, 0, 0},
    {"\042\134ud800\042"sv, "OK", "'\134ud800'"sv, 0, 0, 0, 0},
    {"\042\134ud800\134udc00\042"sv, "OK", "'\360\220\200\200'"sv, 0, 0, 0, 0},
    {"\042\134ud83d\134ude00\042"sv, "OK", "'\360\237\230\200'"sv, 0, 0, 0, 0},
    {"\042\134ud800\134u0041\042"sv, "OK", "'\134ud800A'"sv, 0, 0, 0, 0},
    {"\042\134ud800x\042"sv, "OK", "'\134ud800x'"sv, 0, 0, 0, 0},
    {"\042\134ud800\134ud800\042"sv, "OK", "'\134ud800\134ud800'"sv, 0, 0, 0, 0},
    {"\042\134udc00\134ud800\042"sv, "OK", "'\134udc00\134ud800'"sv, 0, 0, 0, 0},
    {"\042\134\134\134/\134\042\134b\134f\134n\134r\134t\042"sv, "OK", "'\134\134/\042\134x08\134x0c\134n\134r\134t'"sv, 0, 0, 0, 0},
    {"\042a\134u0000b\042"sv, "OK", "'a\134x00b'"sv, 0, 0, 0, 0},
    {"\042\177\042"sv, "OK", "'\134x7f'"sv, 0, 0, 0, 0},
    {"\042tab\011here\042"sv, "JSONDecodeError", "Invalid control character at: line 1 column 5 (char 4)"sv, 4, 4, 1, 5},
    {"\042\037\042"sv, "JSONDecodeError", "Invalid control character at: line 1 column 2 (char 1)"sv, 1, 1, 1, 2},
    {"\042\134x\042"sv, "JSONDecodeError", "Invalid \134escape: line 1 column 2 (char 1)"sv, 1, 1, 1, 2},
    {"\042\134u12\042"sv, "JSONDecodeError", "Invalid \134uXXXX escape: line 1 column 3 (char 2)"sv, 2, 2, 1, 3},
    {"\042\134u12g4\042"sv, "JSONDecodeError", "Invalid \134uXXXX escape: line 1 column 3 (char 2)"sv, 2, 2, 1, 3},
    {"\042\134ud800\134u12g4\042"sv, "JSONDecodeError", "Invalid \134uXXXX escape: line 1 column 9 (char 8)"sv, 8, 8, 1, 9},
    {"\042\134ud800\134x\042"sv, "JSONDecodeError", "Invalid \134escape: line 1 column 8 (char 7)"sv, 7, 7, 1, 8},
    {"\042abc"sv, "JSONDecodeError", "Unterminated string starting at: line 1 column 1 (char 0)"sv, 0, 0, 1, 1},
    {"\042a\134"sv, "JSONDecodeError", "Unterminated string starting at: line 1 column 1 (char 0)"sv, 0, 0, 1, 1},
    {"\042\134u1234"sv, "JSONDecodeError", "Invalid \134uXXXX escape: line 1 column 3 (char 2)"sv, 2, 2, 1, 3},
    {"\042\134ud800\134udc00"sv, "JSONDecodeError", "Invalid \134uXXXX escape: line 1 column 9 (char 8)"sv, 8, 8, 1, 9},
    {"{}"sv, "OK", "{}"sv, 0, 0, 0, 0},
    {"[]"sv, "OK", "[]"sv, 0, 0, 0, 0},
    {"{\042a\042: 1, \042b\042: [1, 2.5, \042x\042]}"sv, "OK", "{'a': 1, 'b': [1, 2.5, 'x']}"sv, 0, 0, 0, 0},
    {"{\042a\042: 1, \042b\042: 2, \042a\042: 3}"sv, "OK", "{'a': 3, 'b': 2}"sv, 0, 0, 0, 0},
    {"{\042a\042:1,\042a\042:{\042b\042:2}}"sv, "OK", "{'a': {'b': 2}}"sv, 0, 0, 0, 0},
    {"{\042format\042: \042int8_tensorwise\042, \042convrot\042: true, \042convrot_groupsize\042: 256}"sv, "OK", "{'format': 'int8_tensorwise', 'convrot': True, 'convrot_groupsize': 256}"sv, 0, 0, 0, 0},
    {"{\042format\042: \042asym_w4a8_int8\042, \042group_size\042: 16, \042convrot_groupsize\042: 256}"sv, "OK", "{'format': 'asym_w4a8_int8', 'group_size': 16, 'convrot_groupsize': 256}"sv, 0, 0, 0, 0},
    {"{\042format_version\042: \0421.0\042, \042layers\042: {\042m.w\042: {\042format\042: \042nvfp4\042, \042full_precision_matrix_mult\042: true}}}"sv, "OK", "{'format_version': '1.0', 'layers': {'m.w': {'format': 'nvfp4', 'full_precision_matrix_mult': True}}}"sv, 0, 0, 0, 0},
    {"[null, true, false, NaN, -Infinity, 1e400, -0, -0.0, {\042\042: []}]"sv, "OK", "[None, True, False, nan, -inf, inf, 0, -0.0, {'': []}]"sv, 0, 0, 0, 0},
    {"{\042k\042: \042it's\042}"sv, "OK", "{'k': \042it's\042}"sv, 0, 0, 0, 0},
    {"{"sv, "JSONDecodeError", "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"sv, 1, 1, 1, 2},
    {"{\042a\042 1}"sv, "JSONDecodeError", "Expecting ':' delimiter: line 1 column 6 (char 5)"sv, 5, 5, 1, 6},
    {"{\042a\042:}"sv, "JSONDecodeError", "Expecting value: line 1 column 6 (char 5)"sv, 5, 5, 1, 6},
    {"{\042a\042:1,}"sv, "JSONDecodeError", "Expecting property name enclosed in double quotes: line 1 column 8 (char 7)"sv, 7, 7, 1, 8},
    {"{1:2}"sv, "JSONDecodeError", "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"sv, 1, 1, 1, 2},
    {"{\042a\042:1 \042b\042:2}"sv, "JSONDecodeError", "Expecting ',' delimiter: line 1 column 8 (char 7)"sv, 7, 7, 1, 8},
    {"{\042a\042:1}x"sv, "JSONDecodeError", "Extra data: line 1 column 8 (char 7)"sv, 7, 7, 1, 8},
    {"[1,]"sv, "JSONDecodeError", "Expecting value: line 1 column 4 (char 3)"sv, 3, 3, 1, 4},
    {"["sv, "JSONDecodeError", "Expecting value: line 1 column 2 (char 1)"sv, 1, 1, 1, 2},
    {"[1"sv, "JSONDecodeError", "Expecting ',' delimiter: line 1 column 3 (char 2)"sv, 2, 2, 1, 3},
    {"[1 2]"sv, "JSONDecodeError", "Expecting ',' delimiter: line 1 column 4 (char 3)"sv, 3, 3, 1, 4},
    {"]"sv, "JSONDecodeError", "Expecting value: line 1 column 1 (char 0)"sv, 0, 0, 1, 1},
    {""sv, "JSONDecodeError", "Expecting value: line 1 column 1 (char 0)"sv, 0, 0, 1, 1},
    {" "sv, "JSONDecodeError", "Expecting value: line 1 column 2 (char 1)"sv, 1, 1, 1, 2},
    {"\012\012  "sv, "JSONDecodeError", "Expecting value: line 3 column 3 (char 4)"sv, 4, 4, 3, 3},
    {"01"sv, "JSONDecodeError", "Extra data: line 1 column 2 (char 1)"sv, 1, 1, 1, 2},
    {"-"sv, "JSONDecodeError", "Expecting value: line 1 column 1 (char 0)"sv, 0, 0, 1, 1},
    {"1."sv, "JSONDecodeError", "Extra data: line 1 column 2 (char 1)"sv, 1, 1, 1, 2},
    {".5"sv, "JSONDecodeError", "Expecting value: line 1 column 1 (char 0)"sv, 0, 0, 1, 1},
    {"1e"sv, "JSONDecodeError", "Extra data: line 1 column 2 (char 1)"sv, 1, 1, 1, 2},
    {"tru"sv, "JSONDecodeError", "Expecting value: line 1 column 1 (char 0)"sv, 0, 0, 1, 1},
    {"True"sv, "JSONDecodeError", "Expecting value: line 1 column 1 (char 0)"sv, 0, 0, 1, 1},
    {"nan"sv, "JSONDecodeError", "Expecting value: line 1 column 1 (char 0)"sv, 0, 0, 1, 1},
    {"-Inf"sv, "JSONDecodeError", "Expecting value: line 1 column 1 (char 0)"sv, 0, 0, 1, 1},
    {"NaN1"sv, "JSONDecodeError", "Extra data: line 1 column 4 (char 3)"sv, 3, 3, 1, 4},
    {"[1]]"sv, "JSONDecodeError", "Extra data: line 1 column 4 (char 3)"sv, 3, 3, 1, 4},
    {" \012 [1,\012 2\012 x]"sv, "JSONDecodeError", "Expecting ',' delimiter: line 4 column 2 (char 11)"sv, 11, 11, 4, 2},
    {"{\042\303\251\042: 1,\012 \042\303\274\042: x}"sv, "JSONDecodeError", "Expecting value: line 2 column 7 (char 15)"sv, 17, 15, 2, 7},
    {"[\042\346\227\245\346\234\254\350\252\236\042, \012  oops]"sv, "JSONDecodeError", "Expecting value: line 2 column 3 (char 11)"sv, 17, 11, 2, 3},
    {"\042\303\251\012\042"sv, "JSONDecodeError", "Invalid control character at: line 1 column 3 (char 2)"sv, 3, 2, 1, 3},
    {"\042\303\251\303\251\042 1"sv, "JSONDecodeError", "Extra data: line 1 column 6 (char 5)"sv, 7, 5, 1, 6},
    {"\015\012[1,\015\012 x]"sv, "JSONDecodeError", "Expecting value: line 3 column 2 (char 8)"sv, 8, 8, 3, 2},
    {"\042\360\237\230\200\042 x"sv, "JSONDecodeError", "Extra data: line 1 column 5 (char 4)"sv, 7, 4, 1, 5},
    {"{\042a\042:\012\042b\012\042}"sv, "JSONDecodeError", "Invalid control character at: line 2 column 3 (char 8)"sv, 8, 8, 2, 3},
    {"\377"sv, "UnicodeDecodeError", "'utf-8' codec can't decode byte 0xff in position 0: invalid start byte"sv, 0, 0, 0, 0},
    {"\042\355\240\200\042"sv, "OK", "'\134ud800'"sv, 0, 0, 0, 0},
    {"\042\355\240\042"sv, "UnicodeDecodeError", "'utf-8' codec can't decode byte 0xed in position 1: invalid continuation byte"sv, 1, 0, 0, 0},
    {"\042\342\202\042"sv, "UnicodeDecodeError", "'utf-8' codec can't decode bytes in position 1-2: invalid continuation byte"sv, 1, 0, 0, 0},
    {"\042\303\042x"sv, "UnicodeDecodeError", "'utf-8' codec can't decode byte 0xc3 in position 1: invalid continuation byte"sv, 1, 0, 0, 0},
    {"\042\303"sv, "UnicodeDecodeError", "'utf-8' codec can't decode byte 0xc3 in position 1: unexpected end of data"sv, 1, 0, 0, 0},
    {"\042\342\202"sv, "UnicodeDecodeError", "'utf-8' codec can't decode bytes in position 1-2: unexpected end of data"sv, 1, 0, 0, 0},
    {"\042\360\237\230\042x"sv, "UnicodeDecodeError", "'utf-8' codec can't decode bytes in position 1-3: invalid continuation byte"sv, 1, 0, 0, 0},
    {"\042\300\200\042"sv, "UnicodeDecodeError", "'utf-8' codec can't decode byte 0xc0 in position 1: invalid start byte"sv, 1, 0, 0, 0},
    {"\042\364\220\200\200\042"sv, "UnicodeDecodeError", "'utf-8' codec can't decode byte 0xf4 in position 1: invalid continuation byte"sv, 1, 0, 0, 0},
    {"\042\340\200\200\042"sv, "UnicodeDecodeError", "'utf-8' codec can't decode byte 0xe0 in position 1: invalid continuation byte"sv, 1, 0, 0, 0},
    {"\042\365\042"sv, "UnicodeDecodeError", "'utf-8' codec can't decode byte 0xf5 in position 1: invalid start byte"sv, 1, 0, 0, 0},
    {"\042\200\042"sv, "UnicodeDecodeError", "'utf-8' codec can't decode byte 0x80 in position 1: invalid start byte"sv, 1, 0, 0, 0},
    {"\357\273\277{\042a\042:1}"sv, "OK", "{'a': 1}"sv, 0, 0, 0, 0},
    {"\357\273\277\377"sv, "UnicodeDecodeError", "'utf-8' codec can't decode byte 0xff in position 0: invalid start byte"sv, 3, 0, 0, 0},
    {"\357\273\277"sv, "JSONDecodeError", "Expecting value: line 1 column 1 (char 0)"sv, 3, 0, 1, 1},
    {"\357\273"sv, "UnicodeDecodeError", "'utf-8' codec can't decode bytes in position 0-1: unexpected end of data"sv, 0, 0, 0, 0},
    {"\357\273\277\357\273\2771"sv, "JSONDecodeError", "Expecting value: line 1 column 1 (char 0)"sv, 3, 0, 1, 1},
    {"\357\273\277[1,\012 x]"sv, "JSONDecodeError", "Expecting value: line 2 column 2 (char 5)"sv, 8, 5, 2, 2},
    {"\042\355\240\200\355\260\200\042"sv, "OK", "'\134ud800\134udc00'"sv, 0, 0, 0, 0},
    {"\042\360\237\230\200\042"sv, "OK", "'\360\237\230\200'"sv, 0, 0, 0, 0},
    {"\042\355\240\275\355\270\200\042"sv, "OK", "'\134ud83d\134ude00'"sv, 0, 0, 0, 0},
    {"[\0001\000]\000"sv, "OK", "[1]"sv, 0, 0, 0, 0},
    {"{\000\042\000"sv, "JSONDecodeError", "Unterminated string starting at: line 1 column 2 (char 1)"sv, 2, 1, 1, 2},
    {"\377\376[\000]\000"sv, "OK", "[]"sv, 0, 0, 0, 0},
    {"\376\377\000[\000]"sv, "OK", "[]"sv, 0, 0, 0, 0},
    {"\042\000\000\330\042\000"sv, "OK", "'\134ud800'"sv, 0, 0, 0, 0},
    {"\042\000\000\334\042\000"sv, "OK", "'\134udc00'"sv, 0, 0, 0, 0},
    {"\042\000=\330\000\336\042\000"sv, "OK", "'\360\237\230\200'"sv, 0, 0, 0, 0},
    {"\377\376\000"sv, "UnicodeDecodeError", "'utf-16-le' codec can't decode byte 0x00 in position 2: truncated data"sv, 2, 0, 0, 0},
    {"\377\376[\000x\000"sv, "JSONDecodeError", "Expecting value: line 1 column 2 (char 1)"sv, 4, 1, 1, 2},
    {"\000[\000x"sv, "JSONDecodeError", "Expecting value: line 1 column 2 (char 1)"sv, 2, 1, 1, 2},
    {"\042\000\000\330A"sv, "UnicodeDecodeError", "'utf-16-le' codec can't decode byte 0x41 in position 4: truncated data"sv, 4, 0, 0, 0},
    {"[\000\000\000]\000\000\000"sv, "OK", "[]"sv, 0, 0, 0, 0},
    {"1\000\000\000\000"sv, "UnicodeDecodeError", "'utf-32-le' codec can't decode byte 0x00 in position 4: truncated data"sv, 4, 0, 0, 0},
    {"1\000\000\000\000\000"sv, "UnicodeDecodeError", "'utf-32-le' codec can't decode bytes in position 4-5: truncated data"sv, 4, 0, 0, 0},
    {"\042\000\000\000\000\000\021\000\042\000\000\000"sv, "UnicodeDecodeError", "'utf-32-le' codec can't decode bytes in position 4-7: code point not in range(0x110000)"sv, 4, 0, 0, 0},
    {"\042\000\000\000\000\330\000\000\042\000\000\000"sv, "OK", "'\134ud800'"sv, 0, 0, 0, 0},
    {"\000\000\000\000"sv, "JSONDecodeError", "Expecting value: line 1 column 1 (char 0)"sv, 0, 0, 1, 1},
    {"\0001"sv, "OK", "1"sv, 0, 0, 0, 0},
    {"1\000"sv, "OK", "1"sv, 0, 0, 0, 0},
    {"\000\000\376\377\000\000\0001"sv, "OK", "1"sv, 0, 0, 0, 0},
    {"\377\376\000\000[\000\000\000x\000\000\000"sv, "JSONDecodeError", "Expecting value: line 1 column 2 (char 1)"sv, 8, 1, 1, 2},
    {"{\042a\042: 1}\000\000"sv, "JSONDecodeError", "Extra data: line 1 column 9 (char 8)"sv, 8, 8, 1, 9},
    {"1\000\000"sv, "JSONDecodeError", "Extra data: line 1 column 2 (char 1)"sv, 1, 1, 1, 2},
    {"\000"sv, "JSONDecodeError", "Expecting value: line 1 column 1 (char 0)"sv, 0, 0, 1, 1},
    {"\042\000\042"sv, "JSONDecodeError", "Invalid control character at: line 1 column 2 (char 1)"sv, 1, 1, 1, 2},
};

struct EqualCase {
  std::string_view a, b;  // json.loads(a) == json.loads(b)
  bool equal;
};

const EqualCase kEqualCases[] = {
    {"1"sv, "true"sv, true},
    {"1"sv, "1.0"sv, true},
    {"0"sv, "false"sv, true},
    {"0"sv, "-0.0"sv, true},
    {"true"sv, "1.0"sv, true},
    {"NaN"sv, "NaN"sv, false},
    {"{\042a\042: [NaN]}"sv, "{\042a\042: [NaN]}"sv, true},
    {"[NaN]"sv, "[NaN]"sv, true},
    {"9007199254740993"sv, "9007199254740992.0"sv, false},
    {"9007199254740992"sv, "9007199254740992.0"sv, true},
    {"18446744073709551616"sv, "1.8446744073709552e19"sv, true},
    {"18446744073709551615"sv, "1.8446744073709552e19"sv, false},
    {"-18446744073709551616"sv, "-1.8446744073709552e19"sv, true},
    {"{\042a\042:1,\042b\042:2}"sv, "{\042b\042:2.0,\042a\042:true}"sv, true},
    {"{\042a\042:1,\042b\042:2}"sv, "{\042a\042:1,\042b\042:2,\042c\042:3}"sv, false},
    {"{\042a\042:1}"sv, "{\042b\042:1}"sv, false},
    {"[1]"sv, "[1,2]"sv, false},
    {"[1,2]"sv, "[2,1]"sv, false},
    {"\0421\042"sv, "1"sv, false},
    {"null"sv, "null"sv, true},
    {"null"sv, "0"sv, false},
    {"null"sv, "false"sv, false},
    {"[]"sv, "{}"sv, false},
    {"1e400"sv, "Infinity"sv, true},
    {"-1e400"sv, "-Infinity"sv, true},
    {"1e400"sv, "-Infinity"sv, false},
    {"1e400"sv, "1e308"sv, false},
    {"{\042a\042:[1,{\042b\042:null}]}"sv, "{\042a\042:[1.0,{\042b\042:null}]}"sv, true},
    {"\042\134u00e9\042"sv, "\042\303\251\042"sv, true},
    {"\042\134ud800\042"sv, "\042\134ud800\042"sv, true},
    {"\042\134ud83d\134ude00\042"sv, "\042\360\237\230\200\042"sv, true},
    {"\042\134ud83d\134ude00\042"sv, "\042\355\240\275\355\270\200\042"sv, false},
    {"16"sv, "16.5"sv, false},
    {"0.5"sv, "0.5"sv, true},
    {"0.1"sv, "0.1000000000000000055511151231257827"sv, true},
    {"-0"sv, "0"sv, true},
    {"123456789012345678901234567890"sv, "123456789012345678901234567890.0"sv, false},
    {"1e30"sv, "1000000000000000019884624838656"sv, true},
};

struct IntCase {
  std::string_view input;  // int(json.loads(input))
  std::string_view kind;   // "OK" or the exception's class name
  std::string_view text;   // repr(result) or str(exception)
};

const IntCase kIntCases[] = {
    {"\04216\042"sv, "OK", "16"sv},
    {"\042 16 \042"sv, "OK", "16"sv},
    {"\0421.5\042"sv, "ValueError", "invalid literal for int() with base 10: '1.5'"sv},
    {"16.7"sv, "OK", "16"sv},
    {"-16.7"sv, "OK", "-16"sv},
    {"true"sv, "OK", "1"sv},
    {"null"sv, "TypeError", "int() argument must be a string, a bytes-like object or a real number, not 'NoneType'"sv},
    {"[1]"sv, "TypeError", "int() argument must be a string, a bytes-like object or a real number, not 'list'"sv},
    {"{}"sv, "TypeError", "int() argument must be a string, a bytes-like object or a real number, not 'dict'"sv},
    {"\042x\042"sv, "ValueError", "invalid literal for int() with base 10: 'x'"sv},
    {"NaN"sv, "ValueError", "cannot convert float NaN to integer"sv},
    {"Infinity"sv, "OverflowError", "cannot convert float infinity to integer"sv},
    {"\042\134u3000\134u0661\134u0666\134n\042"sv, "OK", "16"sv},
    {"\042\134uff11\134uff16\042"sv, "OK", "16"sv},
    {"\042\134ud835\134udfce\042"sv, "OK", "0"sv},
    {"\0421_000\042"sv, "OK", "1000"sv},
    {"\042_1\042"sv, "ValueError", "invalid literal for int() with base 10: '_1'"sv},
    {"\0421__0\042"sv, "ValueError", "invalid literal for int() with base 10: '1__0'"sv},
    {"\0421_\042"sv, "ValueError", "invalid literal for int() with base 10: '1_'"sv},
    {"\042+5\042"sv, "OK", "5"sv},
    {"\042- 5\042"sv, "ValueError", "invalid literal for int() with base 10: '- 5'"sv},
    {"\042016\042"sv, "OK", "16"sv},
    {"\042\042"sv, "ValueError", "invalid literal for int() with base 10: ''"sv},
    {"\042  \042"sv, "ValueError", "invalid literal for int() with base 10: '  '"sv},
    {"\042\134ud800\042"sv, "ValueError", "invalid literal for int() with base 10: '\134ud800'"sv},
    {"\0421\134u0000\042"sv, "ValueError", "invalid literal for int() with base 10: '1\134x00'"sv},
    {"\0420x10\042"sv, "ValueError", "invalid literal for int() with base 10: '0x10'"sv},
    {"1e300"sv, "OK", "1000000000000000052504760255204420248704468581108159154915854115511802457988908195786371375080447864043704443832883878176942523235360430575644792184786706982848387200926575803737830233794788090059368953234970799945081119038967640880074652742780142494579258788820056842838115669472196386865459400540160"sv},
    {"18446744073709551616"sv, "OK", "18446744073709551616"sv},
    {"-18446744073709551616"sv, "OK", "-18446744073709551616"sv},
    {"\042\134u001c16\042"sv, "ValueError", "invalid literal for int() with base 10: '\134x1c16'"sv},
    {"\04216\134u0085\042"sv, "OK", "16"sv},
    {"\042\134u000b16\134u000c\042"sv, "OK", "16"sv},
    {"-0.0"sv, "OK", "0"sv},
    {"9.223372036854776e18"sv, "OK", "9223372036854775808"sv},
    {"\042abcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabc\042"sv, "ValueError", "invalid literal for int() with base 10: 'abcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabca"sv},
    {"\04299999999999999999999999\042"sv, "OK", "99999999999999999999999"sv},
    {"\042-18446744073709551615\042"sv, "OK", "-18446744073709551615"sv},
    {"1e20"sv, "OK", "100000000000000000000"sv},
    {"\042'16'\042"sv, "ValueError", "invalid literal for int() with base 10: \042'16'\042"sv},
    {"\0421\134u00e9\042"sv, "ValueError", "invalid literal for int() with base 10: '1\303\251'"sv},
    {"16"sv, "OK", "16"sv},
    {"\0421 6\042"sv, "ValueError", "invalid literal for int() with base 10: '1 6'"sv},
    {"\042\331\240\042"sv, "OK", "0"sv},
};

py::Value load(std::string_view text) {
  auto r = py::loads(text);
  INFO((r.ok() ? std::string() : r.error().what()));
  REQUIRE(r.ok());
  return std::move(r).value();
}

}  // namespace

TEST_CASE("python json.loads: repr(loads(x)) and each exception are CPython 3.11's") {
  for (const auto& c : kLoadCases) {
    INFO("input " << py::repr_str(c.input));
    const auto r = py::loads(c.input);
    if (c.kind == "OK") {
      INFO((r.ok() ? std::string() : r.error().what()));
      REQUIRE(r.ok());
      CHECK(py::repr(r.value()) == c.text);
    } else {
      REQUIRE_FALSE(r.ok());
      CHECK(py::kind_name(r.error().kind) == c.kind);
      CHECK(r.error().message == c.text);
      CHECK(r.error().offset == c.offset);
      CHECK(r.error().pos == c.pos);
      CHECK(r.error().lineno == c.lineno);
      CHECK(r.error().colno == c.colno);
    }
  }
}

TEST_CASE("python json.loads: what() is the last line of Python's traceback") {
  const auto r = py::loads("[1,\n x]");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().what() == "JSONDecodeError: Expecting value: line 2 column 2 (char 5)");
  CHECK(py::loads("\xff").error().what() ==
        "UnicodeDecodeError: 'utf-8' codec can't decode byte 0xff in position 0: invalid start byte");
}

TEST_CASE("python json.loads: a duplicate key keeps its first position and takes the last value") {
  const py::Value v = load(R"({"a": 1, "b": 2, "a": {"c": 3}, "b": 4})");
  const auto& items = std::get<py::Dict>(v.data).items;
  REQUIRE(items.size() == 2);
  CHECK(std::get<std::string>(items[0].key.data) == "a");
  CHECK(py::repr(items[0].value) == "{'c': 3}");
  CHECK(std::get<std::string>(items[1].key.data) == "b");
  CHECK(py::repr(v) == "{'a': {'c': 3}, 'b': 4}");
}

TEST_CASE("python json.loads: integers within ±(2^64-1) are Int, larger ones BigInt, 4300 digits at most") {
  CHECK(std::holds_alternative<py::Int>(load("18446744073709551615").data));
  CHECK(std::holds_alternative<py::Int>(load("-18446744073709551615").data));
  CHECK(std::holds_alternative<py::BigInt>(load("18446744073709551616").data));
  CHECK(std::get<py::BigInt>(load("-18446744073709551616").data).decimal == "-18446744073709551616");
  const py::Value zero = load("-0");
  CHECK_FALSE(std::get<py::Int>(zero.data).negative);
  const std::string digits(4300, '7');
  CHECK(py::repr(load(digits)) == digits);
  CHECK(py::repr(load("-" + digits)) == "-" + digits);
  for (const std::string& text : {"7" + digits, "-7" + digits, "[0, 7" + digits + "]"}) {
    const auto r = py::loads(text);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().what() ==
          "ValueError: Exceeds the limit (4300 digits) for integer string conversion: value has 4301 digits; "
          "use sys.set_int_max_str_digits() to increase the limit");
    CHECK(r.error().offset == (text[0] == '[' ? 4 : 0));
  }
}

TEST_CASE("python json.loads: NaN, infinities and -0.0 are floats") {
  CHECK(std::isnan(std::get<double>(load("NaN").data)));
  CHECK(std::get<double>(load("-Infinity").data) == -HUGE_VAL);
  CHECK(std::get<double>(load("1e400").data) == HUGE_VAL);
  CHECK(std::signbit(std::get<double>(load("-0.0").data)));
  CHECK(std::holds_alternative<double>(load("1.0").data));
  CHECK(std::holds_alternative<double>(load("1e5").data));
}

TEST_CASE("python json.loads: a str holds surrogates as three-byte sequences, joined pairs as one character") {
  CHECK(std::get<std::string>(load(R"("\ud800")").data) == "\xed\xa0\x80");
  CHECK(std::get<std::string>(load(R"("\ud800\udc00")").data) == "\xf0\x90\x80\x80");
  CHECK(std::get<std::string>(load("\"\xed\xa0\xbd\xed\xb8\x80\"").data) == "\xed\xa0\xbd\xed\xb8\x80");
  CHECK(std::get<std::string>(load(R"("\ud83d\u0041")").data) == "\xed\xa0\xbd" "A");
  CHECK(py::repr(load(R"(["\udc00", "\u00e9"])")) == "['\\udc00', '\xc3\xa9']");
}

TEST_CASE("python json.loads: nesting deeper than max_depth is a RecursionError") {
  const auto nested = [](std::size_t n, std::string_view open, std::string_view close) {
    std::string s;
    for (std::size_t i = 0; i < n; ++i) s += open;
    s += "1";
    for (std::size_t i = 0; i < n; ++i) s += close;
    return s;
  };
  CHECK(py::loads(nested(995, "[", "]")).ok());
  CHECK(py::loads(nested(995, "{\"a\":", "}")).ok());
  const auto arrays = py::loads(nested(996, "[", "]"));
  REQUIRE_FALSE(arrays.ok());
  CHECK(arrays.error().what() ==
        "RecursionError: maximum recursion depth exceeded while decoding a JSON array from a unicode string");
  CHECK(arrays.error().offset == 995);
  const auto objects = py::loads(nested(996, "{\"a\":", "}"));
  REQUIRE_FALSE(objects.ok());
  CHECK(objects.error().message == "maximum recursion depth exceeded while decoding a JSON object from a unicode string");
  CHECK(objects.error().offset == 995 * 5);
  CHECK(py::loads("[[1]]", {.max_depth = 2}).ok());
  CHECK(py::loads("[[[1]]]", {.max_depth = 2}).error().kind == py::JsonErrorKind::RecursionError);
  CHECK(py::loads(nested(100000, "[", "]"), {.max_bytes = 1 << 20, .max_depth = 1 << 30}).error().kind ==
        py::JsonErrorKind::RecursionError);
}

TEST_CASE("python json.loads: input longer than max_bytes is refused before decoding") {
  CHECK(py::loads("[1, 2, 3]", {.max_bytes = 9}).ok());
  const auto r = py::loads("[1, 2, 3] ", {.max_bytes = 9});
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().what() == "SizeLimit: input of 10 bytes exceeds the limit of 9 bytes");
  CHECK(py::LoadLimits{}.max_bytes == 16u << 20);
  CHECK(py::loads(std::string((16u << 20) + 1, ' ')).error().kind == py::JsonErrorKind::SizeLimit);
}

TEST_CASE("python json.loads: py_equal is Python's == on loaded values") {
  for (const auto& c : kEqualCases) {
    INFO(py::repr_str(c.a) << " == " << py::repr_str(c.b));
    CHECK(py::py_equal(load(c.a), load(c.b)) == c.equal);
    CHECK(py::py_equal(load(c.b), load(c.a)) == c.equal);
  }
  // (1,) == [1] is False; {1: 'a'} == {True: 'a'} is True; (16, 64) == (16.0, 64) is True.
  CHECK_FALSE(py::py_equal(py::tuple({1}), py::list({1})));
  CHECK(py::py_equal(py::dict({{1, "a"}}), py::dict({{true, "a"}})));
  CHECK(py::py_equal(py::tuple({16, 64}), py::tuple({16.0, 64})));
  CHECK(py::py_equal(load("16.0"), py::Value(16)));
}

TEST_CASE("python json.loads: py_int is Python's int() as sglang applies it") {
  for (const auto& c : kIntCases) {
    INFO("int(json.loads(" << py::repr_str(c.input) << "))");
    const auto r = py::py_int(load(c.input));
    if (c.kind == "OK") {
      REQUIRE(r.ok());
      CHECK(py::repr(r.value()) == c.text);
    } else {
      REQUIRE_FALSE(r.ok());
      CHECK(r.error().type == c.kind);
      CHECK(r.error().message == c.text);
    }
  }
  // int('1' * 4301), also with trailing garbage: the digit limit is checked first.
  for (const std::string& s : {std::string(4301, '1'), std::string(4301, '1') + "x", std::string(4301, '0')}) {
    const auto r = py::py_int(py::Value(s));
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message ==
          "Exceeds the limit (4300 digits) for integer string conversion: value has 4301 digits; use "
          "sys.set_int_max_str_digits() to increase the limit");
  }
  CHECK(std::get<py::Int>(py::py_int(py::Value(" 16 ")).value().data).magnitude == 16);
}
