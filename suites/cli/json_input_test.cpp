// tools/common/json_input: the tools' JSON reader refuses documents nested
// too deeply (without recursing on them), keys given twice and numbers out of
// a double's range, each with the file and line; it reads everything else as
// nlohmann does, in both flavours.
#include "json_input.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "json_output.hpp"

namespace {

using ep::tools::JsonInputError;
using ep::tools::parse_json;
using ep::tools::parse_json_ordered;
using Kind = JsonInputError::Kind;

std::string nested(std::size_t depth, char open, char close) {
  return std::string(depth, open) + std::string(depth, close);
}

// The error `text` gets, checked to be of `kind`.
JsonInputError error_of(const std::string& text, Kind kind, std::size_t max_depth = 128) {
  try {
    (void)parse_json_ordered(text, "f.json", max_depth);
  } catch (const JsonInputError& e) {
    EXPECT_EQ(e.kind(), kind) << e.what();
    // The json flavour says the same.
    try {
      (void)parse_json(text, "f.json", max_depth);
      ADD_FAILURE() << "json accepted what ordered_json refused: " << e.what();
    } catch (const JsonInputError& other) {
      EXPECT_STREQ(other.what(), e.what());
    }
    return e;
  }
  ADD_FAILURE() << "accepted: " << text.substr(0, 80);
  return JsonInputError(Kind::syntax, "", 0, "");
}

TEST(JsonInput, ReadsWhatNlohmannReads) {
  const std::string text =
      R"({"b": [1, -2, 3.5, "x", true, null, {}, []], "a": {"c": 18446744073709551615}})";
  const auto ordered = parse_json_ordered(text, "f.json");
  EXPECT_EQ(ordered.dump(), nlohmann::ordered_json::parse(text).dump());
  EXPECT_EQ(ordered.begin().key(), "b");  // the file's order
  EXPECT_EQ(parse_json(text, "f.json"), nlohmann::json::parse(text));
  EXPECT_EQ(parse_json_ordered("7", "f.json"), 7);
  EXPECT_EQ(parse_json_ordered(R"("s")", "f.json"), "s");
}

TEST(JsonInput, DepthUpToTheLimitIsRead) {
  EXPECT_NO_THROW((void)parse_json_ordered(nested(128, '[', ']'), "f.json"));
  EXPECT_NO_THROW((void)parse_json_ordered(nested(4, '[', ']'), "f.json", 4));
}

TEST(JsonInput, DeeperIsRefusedWithTheLine) {
  const JsonInputError e = error_of("[\n[\n[\n[[]]]]]", Kind::too_deep, 4);
  EXPECT_STREQ(e.what(), "f.json: line 4: nesting deeper than 4 levels");
  EXPECT_EQ(e.line(), 4U);
  // Objects count as arrays do.
  std::string objects;
  for (int i = 0; i < 200; ++i) objects += R"({"a":)";
  objects += "1" + std::string(200, '}');
  EXPECT_STREQ(error_of(objects, Kind::too_deep).what(),
               "f.json: line 1: nesting deeper than 128 levels");
}

// What crashed the tools: 200 000 nested arrays. Refused at the limit,
// without recursion, and what was built is freed without recursion too.
TEST(JsonInput, HostileDepthIsRefused) {
  for (const char* brackets : {"[]", "{}"}) {
    std::string text = nested(200000, brackets[0], brackets[1]);
    if (brackets[0] == '{') {  // {"a":{"a":...}}
      text.clear();
      for (int i = 0; i < 200000; ++i) text += R"({"a":)";
      text += "0" + std::string(200000, '}');
    }
    error_of(text, Kind::too_deep);
  }
}

TEST(JsonInput, DuplicateKeyIsRefusedWithTheLine) {
  const JsonInputError e =
      error_of("{\"a\": 1,\n \"b\": {\"a\": 2},\n \"a\": 3}", Kind::duplicate_key);
  EXPECT_STREQ(e.what(), "f.json: line 3: key \"a\" given twice");
  // The same key in different objects, or in sibling objects, is fine.
  EXPECT_NO_THROW((void)parse_json_ordered(R"([{"a": 1}, {"a": 2}, {"b": {"a": 3}}])", "f.json"));
  // Keys are compared once unescaped.
  error_of(R"({"a": 1, "\u0061": 2})", Kind::duplicate_key);
}

TEST(JsonInput, NumbersBeyondADoubleAreRefused) {
  const JsonInputError e = error_of("{\"t\":\n 1e400}", Kind::out_of_range);
  EXPECT_STREQ(e.what(),
               "f.json: line 2: the number 1e400 is out of range (a double reaches about 1.8e308)");
  error_of("[-1e999]", Kind::out_of_range);
  EXPECT_EQ(parse_json_ordered("1e308", "f.json"), 1e308);
}

TEST(JsonInput, SyntaxErrorsSayWhere) {
  const JsonInputError e = error_of("{\n\"a\": }", Kind::syntax);
  EXPECT_STREQ(e.what(),
               "f.json: parse error at line 2, column 6: syntax error while parsing value - "
               "unexpected '}'; expected '[', '{', or a literal");
  error_of("", Kind::syntax);
  error_of("[1] [2]", Kind::syntax);
  error_of("[1,]", Kind::syntax);
}

// read_input_file: regular files only, of bounded size, with the reason.
std::string input_error(const std::string& file, std::uintmax_t max_bytes = 1u << 30) {
  try {
    (void)ep::tools::read_input_file(file, max_bytes);
  } catch (const ep::tools::InputFileError& e) {
    return e.what();
  }
  return "no error";
}

TEST(InputFile, ReadsARegularFileWhole) {
  const std::string file = ::testing::TempDir() + "input-file.json";
  std::ofstream(file) << "{\"a\": 1}";
  EXPECT_EQ(ep::tools::read_input_file(file), "{\"a\": 1}");
  // One byte over the bound is refused before it is read.
  EXPECT_EQ(input_error(file, 7),
            file + ": is 8 bytes or more, larger than the 7 bytes a JSON input may have");
  std::remove(file.c_str());
}

TEST(InputFile, RefusesWhatIsNotARegularFile) {
  EXPECT_EQ(input_error("/dev/zero"), "/dev/zero: is a character device, not a regular file");
  EXPECT_EQ(input_error("/"), "/: is a directory, not a regular file");
  EXPECT_EQ(input_error("/nonexistent/f.json"),
            "/nonexistent/f.json: cannot open: No such file or directory");
}

TEST(InputFile, ProcFilesAreReadToTheEnd) {
  // /proc says 0 bytes and holds more; the bound counts what is read.
  EXPECT_NE(ep::tools::read_input_file("/proc/self/status").find("Name:"), std::string::npos);
  EXPECT_NE(input_error("/proc/self/status", 4).find("grew to"), std::string::npos);
}

// dump_json: bytes that are not UTF-8 become U+FFFD instead of an exception.
TEST(JsonOutput, InvalidUtf8IsReplaced) {
  const nlohmann::ordered_json doc = {{"path", std::string("bad\xff.json")}};
  EXPECT_THROW((void)doc.dump(), nlohmann::json::type_error);
  EXPECT_EQ(ep::tools::dump_json(doc), "{\"path\":\"bad\xef\xbf\xbd.json\"}");
  const nlohmann::json sorted = {{"k", std::string("\xc3")}};
  EXPECT_EQ(ep::tools::dump_json(sorted, 1), "{\n \"k\": \"\xef\xbf\xbd\"\n}");
}

}  // namespace
