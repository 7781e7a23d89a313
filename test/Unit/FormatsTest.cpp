//===- FormatsTest.cpp - the file formats' modules, MLIR-free -------------===//
//
// Each format module (runtime/formats/) read against inputs written by hand
// here, with the values worked out by hand: CSV quoting and located errors,
// composite measurements (their writer read back; runs_J's mean and the
// variance of that mean), kernels files, model files (a fit read back),
// where a JSON reader's error points (jsonAt, jsonParseError).
//
//===----------------------------------------------------------------------===//

#include "runtime/formats/Composites.h"
#include "runtime/formats/Csv.h"
#include "runtime/formats/Json.h"
#include "runtime/formats/Kernels.h"
#include "runtime/formats/ModelFile.h"
#include "runtime/formats/Svg.h"

#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace energy;
using namespace energy::formats;

namespace {

std::string text(const llvm::json::Object &o) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << llvm::json::Value(llvm::json::Object(o));
  return s;
}

TEST(Csv, QuotesBlankLinesAndLineNumbers) {
  CsvTable t;
  CsvError err;
  ASSERT_TRUE(parseCsv(
      "\na,b\r\n1,\"x, \"\"y\"\"\"\n  \n2,\"multi\nline\"\n3,z\n", t, err))
      << err.message;
  EXPECT_EQ(t.headerLine, 2u);
  ASSERT_EQ(t.rows.size(), 3u);
  EXPECT_EQ(t.rows[0][1], "x, \"y\"");
  EXPECT_EQ(t.lines[0], 3u);
  EXPECT_EQ(t.rows[1][1], "multi\nline");
  EXPECT_EQ(t.lines[1], 5u);
  EXPECT_EQ(t.lines[2], 7u); // after the quoted line break
  EXPECT_EQ(t.column("b"), std::optional<size_t>(1));
  EXPECT_FALSE(t.column("c"));
  // Each cell where it starts (line, column), counted by hand: row 0 is
  // line 3 ("1,..." : columns 1 and 3), row 2 line 7 after the quoted line
  // break; a cell's errors point there.
  EXPECT_EQ(t.at("f.csv", 0, 0), "f.csv:3:1");
  EXPECT_EQ(t.at("f.csv", 0, 1), "f.csv:3:3");
  EXPECT_EQ(t.at("f.csv", 1, 1), "f.csv:5:3");
  EXPECT_EQ(t.at("f.csv", 2, 1), "f.csv:7:3");
  EXPECT_EQ(t.at("f.csv", 9, 0), "f.csv");
  // A UTF-8 byte-order mark is not part of the first header cell.
  ASSERT_TRUE(parseCsv("\xEF\xBB\xBFstage,time\n0,1\n", t, err)) << err.message;
  EXPECT_EQ(t.column("stage"), std::optional<size_t>(0));
}

// Cells are decimal numbers: strtod's hexadecimal ("0x12c" read as a 300 W
// power limit), infinities, NaNs and empty cells (read as 0) are not.
TEST(Csv, CellsAreDecimalNumbers) {
  double v = -1;
  for (auto [text, want] :
       std::vector<std::pair<const char *, double>>{{"300", 300},
                                                    {" 2.5 ", 2.5},
                                                    {"-1e3", -1000},
                                                    {".5", 0.5},
                                                    {"5.", 5},
                                                    {"+7E-1", 0.7},
                                                    {"1410.0", 1410}}) {
    EXPECT_TRUE(csvNumber(text, v)) << text;
    EXPECT_DOUBLE_EQ(v, want) << text;
  }
  for (const char *text : {"0x12c", "", " ", "inf", "nan", "1e", "1e+", "12c",
                           "1,5", ".", "-", "1e400", "0x1p3"})
    EXPECT_FALSE(csvNumber(text, v)) << "'" << text << "'";
}

TEST(Csv, LocatedErrors) {
  CsvTable t;
  CsvError err;
  EXPECT_FALSE(parseCsv("a,b\n1,2\n3\n", t, err));
  EXPECT_EQ(err.str("f.csv"), "f.csv:3: expected 2 columns, got 1");
  EXPECT_FALSE(parseCsv("a,b\n\"open,2\n", t, err));
  EXPECT_EQ(err.str("f.csv"), "f.csv:2: unterminated quote");
  EXPECT_FALSE(parseCsv("\n\n", t, err));
  EXPECT_EQ(err.str("f.csv"), "f.csv: empty file");
  // A JSON file where a CSV one belongs (it read as a one-column header).
  EXPECT_FALSE(
      parseCsv("  {\"device\": \"sim:a100\",\n \"entries\": []}", t, err));
  EXPECT_EQ(err.str("db.json"),
            "db.json:1: a JSON document, not CSV (a CSV file begins with its "
            "header line of column names)");
  // A column named twice: the caller would read one of them, unsaid.
  EXPECT_FALSE(parseCsv("stage, time ,time\n0,1,2\n", t, err));
  EXPECT_EQ(err.str("f.csv"), "f.csv:1: the header names column 'time' twice "
                              "(columns 2 and 3): which one is meant?");
  // Unnamed columns (a pandas index) are not names.
  EXPECT_TRUE(parseCsv(",,a\n0,1,2\n", t, err)) << err.message;
  // A title line above the header.
  EXPECT_FALSE(parseCsv("# profile\na,b\n1,2\n", t, err));
  EXPECT_EQ(err.str("f.csv"),
            "f.csv:2: expected 1 columns, got 2; the header (line 1) is "
            "'# profile': a CSV file begins with its header line of column "
            "names, separated by commas");
}

TEST(Csv, LoneCarriageReturnsEndLines) {
  CsvTable t;
  CsvError err;
  ASSERT_TRUE(parseCsv("a,b\r1,2\r\r3,\"x\ry\"\r", t, err)) << err.message;
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(t.lines[1], 4u);
  EXPECT_EQ(t.rows[1][1], "x\ry"); // inside quotes, the CR is the cell's
  // ... and a line of the file: a cell after it counts from there.
  ASSERT_TRUE(parseCsv("a,b\r\"x\ry\",2\r3,4\r", t, err)) << err.message;
  EXPECT_EQ(t.lines[1], 4u);
  EXPECT_EQ(t.at("f.csv", 0, 1), "f.csv:3:4");
}

TEST(Csv, MessagesQuoteCellsShortAndEscaped) {
  EXPECT_EQ(cellForMessage("1.5"), "'1.5'");
  EXPECT_EQ(cellForMessage(llvm::StringRef("3\0"
                                           "0",
                                           3)),
            "'3\\x000'");
  EXPECT_EQ(cellForMessage("it's\t"), "'it\\'s\\x09'");
  std::string huge(5000, '1');
  EXPECT_EQ(cellForMessage(huge),
            "'" + std::string(40, '1') + "' (its first 40 of 5000 bytes)");
  CsvTable t;
  CsvError err;
  ASSERT_TRUE(parseCsv("Stage,Time\n0,1\n", t, err));
  EXPECT_EQ(t.missingColumnHint("stage"),
            " (the header has 'Stage': column names are matched exactly, in "
            "lower case)");
  ASSERT_TRUE(parseCsv("stage;time\n0;1\n", t, err));
  EXPECT_EQ(t.missingColumnHint("time"),
            " (the header is one column holding ';': the columns must be "
            "separated by commas)");
  ASSERT_TRUE(parseCsv("stage,time\n0,1\n", t, err));
  EXPECT_EQ(t.missingColumnHint("energy"), "");
}

TEST(Composites, WrittenThenRead) {
  std::map<std::string, CompositeMeasurement> m;
  std::string err;
  ASSERT_TRUE(parseCompositeMeasurements(
      text(compositeMeasurementJson("attn", 3.32, 0.01, 10, "sim:a100")),
      "m.json", m, err))
      << err;
  ASSERT_EQ(m.count("attn"), 1u);
  EXPECT_DOUBLE_EQ(m["attn"].E, 3.32);
  EXPECT_DOUBLE_EQ(m["attn"].varMean, 0.01 * 0.01);
}

TEST(Composites, RunsGiveTheMeanAndTheVarianceOfTheMean) {
  // Runs 1, 2, 3, 6: mean 3, sample variance (4 + 1 + 0 + 9) / 3 = 14/3,
  // variance of the mean 14/12.
  std::map<std::string, CompositeMeasurement> m;
  std::string err;
  ASSERT_TRUE(parseCompositeMeasurements(R"({"c": {"runs_J": [1, 2, 3, 6]}})",
                                         "m.json", m, err));
  EXPECT_DOUBLE_EQ(m["c"].E, 3);
  EXPECT_NEAR(m["c"].varMean, 14.0 / 12, 1e-12);
  // Both forms, a number as a string, runs_J not a list: refused by name,
  // at the field the message names (columns counted by hand).
  EXPECT_FALSE(parseCompositeMeasurements(
      R"({"c": {"E_J": 21, "sigma_E_J": 0.5, "runs_J": [1, 2, 3]}})", "m.json",
      m, err));
  EXPECT_EQ(err,
            "m.json:1:7: 'c': give E_J and sigma_E_J, or runs_J, not both");
  EXPECT_FALSE(parseCompositeMeasurements(
      R"({"c": {"E_J": "21", "sigma_E_J": 0.5}})", "m.json", m, err));
  EXPECT_EQ(err, "m.json:1:15: 'c': E_J must be a number (J)");
  EXPECT_FALSE(
      parseCompositeMeasurements(R"({"c": {"runs_J": 3}})", "m.json", m, err));
  EXPECT_EQ(err, "m.json:1:18: 'c': runs_J must be a list of energies (J)");
  EXPECT_FALSE(parseCompositeMeasurements(R"({"c": {"runs_J": [1]}})", "m.json",
                                          m, err));
  EXPECT_EQ(err, "m.json:1:18: 'c': runs_J needs at least two runs");
  EXPECT_FALSE(parseCompositeMeasurements(
      R"({"c": {"E_J": 1, "sigma_E_J": -1}})", "m.json", m, err));
  EXPECT_EQ(err, "m.json:1:31: 'c': sigma_E_J must be non-negative and up to "
                 "1e15 J (a petajoule)");
  // A sigma whose square overflows made the deviation test's threshold
  // infinite (printed 0x7FF0000000000000): refused.
  EXPECT_FALSE(parseCompositeMeasurements(
      R"({"c": {"E_J": 1, "sigma_E_J": 1e308}})", "m.json", m, err));
  EXPECT_EQ(err, "m.json:1:31: 'c': sigma_E_J must be non-negative and up to "
                 "1e15 J (a petajoule)");
  // A number past the largest double reads as infinity: refused.
  EXPECT_FALSE(parseCompositeMeasurements(
      R"({"c": {"E_J": 1e400, "sigma_E_J": 0.1}})", "m.json", m, err));
  EXPECT_EQ(err,
            "m.json:1:15: 'c': E_J must be a non-negative energy up to 1e15 "
            "J (a petajoule)");
  EXPECT_FALSE(parseCompositeMeasurements(R"({"c": {"runs_J": [1, 1e400]}})",
                                          "m.json", m, err));
  EXPECT_EQ(err,
            "m.json:1:18: 'c': runs_J must hold non-negative energies up to "
            "1e15 J (a petajoule)");
}

TEST(Kernels, KernelsCompositesAndTheirErrors) {
  std::vector<rt::KernelSpec> k;
  std::vector<CompositeSpec> c;
  std::string err;
  ASSERT_TRUE(parseKernels(
      R"([{"key": "a", "flops": 1e9, "bytes": 1e6},
          {"key": "b", "flops": 0, "bytes": 1e6, "reuses": "a"},
          {"key": "ab", "sequence": ["a", ["b", 3]]}])",
      "k.json", k, &c, err))
      << err;
  ASSERT_EQ(k.size(), 2u);
  EXPECT_EQ(k[1].reuses, "a");
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].parts[1], (std::pair<std::string, unsigned>("b", 3)));
  EXPECT_FALSE(parseKernels(R"([{"key": "a", "flops": 1, "bytes": 1},
                                {"key": "a", "flops": 1, "bytes": 1}])",
                            "k.json", k, &c, err));
  EXPECT_EQ(err, "k.json:2:33: kernel #1: duplicate key 'a'");
  k.clear();
  // A misspelt field is refused, not read as absent.
  EXPECT_FALSE(
      parseKernels(R"([{"key": "a", "flops": 1, "bytes": 1, "reuse": "b"}])",
                   "k.json", k, &c, err));
  EXPECT_EQ(err, "k.json:1:2: kernel #0: unknown field \"reuse\" (a kernel has "
                 "key, flops, bytes and optionally reuses; a composite key "
                 "and sequence)");
  k.clear();
  EXPECT_FALSE(parseKernels(R"([{"key": "a", "flops": 1, "bytes": 1},
                                {"key": "x", "sequence": ["a"]},
                                {"key": "y", "sequence": ["x"]}])",
                            "k.json", k, &c, err));
  EXPECT_EQ(err, "k.json:3:59: composite 'y' names 'x', a composite; a "
                 "composite's parts must be kernels");
  k.clear();
  EXPECT_FALSE(parseKernels(R"([{"key": "a", "flops": 1e300, "bytes": 1}])",
                            "k.json", k, &c, err));
  EXPECT_NE(err.find("must be at most"), std::string::npos) << err;
}

TEST(ModelFile, TokenLawWrittenThenRead) {
  calculus::TokenLaw law;
  law.coef = {0.5, 2.0, 150.0, 0.1};
  for (int i = 0; i < 16; ++i)
    law.cov[size_t(i)] = i % 5 == 0 ? 1e-4 : 0;
  ModelFile mf;
  std::string err;
  ASSERT_TRUE(parseModelFile(text(tokenLawModelJson(law)), "m.json", mf, err))
      << err;
  EXPECT_EQ(mf.kind, "token-law");
  for (int i = 0; i < 4; ++i)
    EXPECT_DOUBLE_EQ(mf.law.coef[size_t(i)], law.coef[size_t(i)]);
  EXPECT_EQ(mf.sharedCov.size(), 16u);
  EXPECT_FALSE(parseModelFile(R"({"version": 2})", "m.json", mf, err));
  // Located: at the version's value (column 13); a missing field at the
  // object that lacks it; a misspelt one at its value.
  EXPECT_EQ(err,
            "m.json:1:13: unsupported model file (expected \"version\": 1)");
  EXPECT_FALSE(parseModelFile(R"({"version": 1, "model": "flop-byte"})",
                              "m.json", mf, err));
  EXPECT_EQ(err, "m.json:1:1: flop-byte needs 'parameters' (a number)");
  EXPECT_FALSE(
      parseModelFile(R"({"version": 1, "model": "token-law", "coefs": {}})",
                     "m.json", mf, err));
  EXPECT_EQ(err.substr(0, err.find(" (")), "m.json:1:47: 'coefs': unknown key");
}

} // namespace

// Axis tick labels tell neighbouring ticks apart at any magnitude: tiny
// values (a microsecond trace's times) in scientific notation with as many
// digits as the step needs, not five copies of "3.0e-06".
TEST(Svg, TickLabelsDistinguishNeighbours) {
  for (double lo : {2.94e-6, 19.3892, 4.2e9, 1234.5}) {
    double hi = lo * 1.04;
    std::vector<double> t = energy::svg::ticks(lo, hi);
    ASSERT_GE(t.size(), 2u);
    std::vector<std::string> l = energy::svg::tickLabels(t);
    for (size_t i = 1; i < t.size(); ++i)
      EXPECT_NE(l[i - 1], l[i]) << lo << ": " << l[i];
  }
}

// One style per axis: a report's time axis from 0 to 130 us was labelled
// "2.0e-05" beside "0.00010".
TEST(Svg, TickLabelsShareOneStyle) {
  for (double hi : {1.3e-4, 9e-5, 2e7, 1.3e7}) {
    std::vector<double> t = energy::svg::ticks(0, hi);
    std::vector<std::string> l = energy::svg::tickLabels(t);
    ASSERT_GE(l.size(), 3u);
    size_t sci = 0, nonzero = 0;
    for (size_t i = 0; i < t.size(); ++i)
      if (t[i] != 0) {
        ++nonzero;
        sci += l[i].find('e') != std::string::npos;
      }
    EXPECT_TRUE(sci == 0 || sci == nonzero)
        << hi << ": " << l[1] << " ... " << l.back();
  }
}

TEST(Formats, JsonAtPointsAtTheValue) {
  // Columns counted by hand (1-based): a key inside a string, an escaped
  // quote, nested arrays and objects skipped on the way.
  llvm::StringRef doc = "{\"a\": \"x\\\"entries\\\"\",\n"
                        " \"skip\": [[1, {\"b\": [2]}], -3.5e2, true],\n"
                        " \"entries\": [ {\"k\": 1},\n   {\"k\": null}]}";
  EXPECT_EQ(jsonAt("f.json", doc, {"entries", size_t(0)}), "f.json:3:15");
  EXPECT_EQ(jsonAt("f.json", doc, {"entries", size_t(1)}), "f.json:4:4");
  EXPECT_EQ(jsonAt("f.json", doc, {"entries", size_t(1), "k"}), "f.json:4:10");
  EXPECT_EQ(jsonAt("f.json", doc, {"skip", size_t(0), size_t(1), "b"}),
            "f.json:2:21");
  EXPECT_EQ(jsonAt("f.json", doc, {"a"}), "f.json:1:7");
  // A path the document does not hold: the last value it reached (the
  // object a key is missing from); a text without a value: the file alone.
  EXPECT_EQ(jsonAt("f.json", doc, {"entries", size_t(2)}), "f.json:3:13");
  EXPECT_EQ(jsonAt("f.json", doc, {"entries", size_t(1), "x"}), "f.json:4:4");
  EXPECT_EQ(jsonAt("f.json", doc, {"nope"}), "f.json:1:1");
  EXPECT_EQ(jsonAt("f.json", "  [1, 2", {size_t(5)}), "f.json:1:3");
  EXPECT_EQ(jsonAt("f.json", " \n ", {"a"}), "f.json");
  // The readers' JSONPaths.
  EXPECT_EQ(jsonAt("f.json", doc, jsonPathSteps("$.entries[1].k")),
            "f.json:4:10");
  EXPECT_EQ(jsonAt("f.json", doc, jsonPathSteps("$")), "f.json:1:1");
  EXPECT_EQ(jsonAt("f.json", doc, jsonPathSteps("$.skip[0][1].b[0]")),
            "f.json:2:22");
}

TEST(Formats, JsonParseErrorsAreLocated) {
  llvm::Expected<llvm::json::Value> v = parseJson("{\"a\": 1,\n  ]");
  ASSERT_FALSE(bool(v));
  // llvm::json stops just past the unexpected ']' (column 3, 1-based).
  EXPECT_EQ(jsonParseError("f.json", v.takeError()),
            "f.json:2:4: malformed JSON: Expected object key");
  // A key an object repeats (the same key in another object, or in each
  // of an array's objects, is no repeat).
  v = parseJson("{\"a\": 1,\n \"b\": {\"a\": 2, \"a\": 3}}");
  ASSERT_FALSE(bool(v));
  EXPECT_EQ(jsonParseError("f.json", v.takeError()),
            "f.json:2:16: malformed JSON: duplicate key \"a\"");
  // Another format given for JSON (IR repeats names that look like keys):
  // the syntax error, and how the file begins, not a repeated key.
  v = parseJson("sched.schedule @s {\n  \"a\": 1, \"a\": 2 }");
  ASSERT_FALSE(bool(v));
  EXPECT_EQ(jsonParseError("p.mlir", v.takeError()),
            "p.mlir:1:2: malformed JSON: Invalid JSON value (not a JSON "
            "object or array: the file begins \"sched.schedule @s {\")");
  v = parseJson("[{\"k\": 1, \"s\": \"\\\"k\\\"\"}, {\"k\": 2}]");
  EXPECT_TRUE(bool(v)) << llvm::toString(v.takeError());
  v = parseJson(std::string(300, '['));
  ASSERT_FALSE(bool(v));
  EXPECT_EQ(jsonParseError("f.json", v.takeError()),
            "f.json:1:257: malformed JSON: nesting deeper than 256 levels");
}
