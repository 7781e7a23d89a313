//===- readers_fuzz.cpp - libFuzzer targets for the runtime's file readers
//-===//
//
// Coverage-guided fuzzing of the readers that take users' files without
// MLIR: the signature DB (read -> write -> read -> write identical, and
// pooling with itself), plan files, fleet files, ML.ENERGY task files,
// Kineto traces (plain or gzip), kernels files, CSVs (stage profiles,
// power-cap tables, fit inputs) and model files.
// One source, one target per ENERGY_FUZZ_TARGET (test/Fuzz/libfuzzer.sh
// builds each with -fsanitize=fuzzer,address,undefined): any crash,
// sanitizer report, leak or a round trip that differs is a finding.
//
//===----------------------------------------------------------------------===//

#include "runtime/db/SignatureDb.h"
#include "runtime/formats/Csv.h"
#include "runtime/formats/Fleet.h"
#include "runtime/formats/Kernels.h"
#include "runtime/formats/MlEnergy.h"
#include "runtime/formats/ModelFile.h"
#include "runtime/plan/Plan.h"
#include "translate/KinetoTrace.h"

#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>

namespace {

/// The readers that take a path get the input through one file per process.
const std::string &scratch() {
  static const std::string path = [] {
    const char *dir = std::getenv("TMPDIR");
    return std::string(dir && *dir ? dir : "/tmp") + "/energy-fuzz-" +
           std::to_string(::getpid()) + ".json";
  }();
  return path;
}

void writeScratch(const uint8_t *data, size_t size) {
  FILE *f = std::fopen(scratch().c_str(), "wb");
  if (!f)
    std::abort();
  if (size && std::fwrite(data, 1, size, f) != size)
    std::abort();
  std::fclose(f);
}

[[noreturn]] void finding(const char *what, const std::string &detail) {
  std::fprintf(stderr, "finding: %s\n%s\n", what, detail.c_str());
  std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace energy;
  std::string err;
#if ENERGY_FUZZ_TARGET == 1 // signature DB
  writeScratch(data, size);
  rt::SignatureDb db;
  if (!rt::readSignatureDb(scratch(), db, err)) {
    if (err.empty())
      finding("a refused DB without a reason", "");
    return 0;
  }
  std::string once = rt::writeSignatureDb(db);
  writeScratch(reinterpret_cast<const uint8_t *>(once.data()), once.size());
  rt::SignatureDb back;
  if (!rt::readSignatureDb(scratch(), back, err))
    finding("a DB we wrote does not read back", err + "\n" + once);
  if (rt::writeSignatureDb(back) != once)
    finding("write -> read -> write differs", once);
  rt::SignatureDb pooled;
  (void)rt::poolSignatureDbs({db, db}, {"a", "b"}, pooled, err);
#elif ENERGY_FUZZ_TARGET == 2  // plan files
  rt::Plan plan;
  std::string text(reinterpret_cast<const char *>(data), size);
  if (!rt::parsePlan(text, "fuzz.json", "", plan, err) && err.empty())
    finding("a refused plan without a reason", "");
#elif ENERGY_FUZZ_TARGET == 3  // fleet files
  formats::FleetFile fleet;
  std::string text(reinterpret_cast<const char *>(data), size);
  if (!formats::parseFleet(text, "fuzz.json", fleet, err) && err.empty())
    finding("a refused fleet without a reason", "");
#elif ENERGY_FUZZ_TARGET == 4  // ML.ENERGY task files
  writeScratch(data, size);
  std::vector<formats::ServingPoint> points;
  if (!formats::readMlEnergy(scratch(), points, err) && err.empty())
    finding("a refused ML.ENERGY file without a reason", "");
  (void)formats::observations(points);
#elif ENERGY_FUZZ_TARGET == 7  // Kineto traces (the reader of --import-kineto)
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  std::string inflated;
  if (inflateGzip(text, inflated, err))
    text = inflated;
  else if (!err.empty())
    return 0; // corrupt gzip: refused with its reason
  KinetoRank rank;
  std::string errAt;
  if (!readKinetoRank("fuzz.json", text, 0, rank, err, errAt)) {
    if (err.empty())
      finding("a refused trace without a reason", "");
    return 0;
  }
  for (const GpuEvent &e : rank.events)
    if (!(e.dur >= 0) || !std::isfinite(e.dur) || !std::isfinite(e.ts) ||
        e.stream < 0 || e.index >= size)
      finding("an accepted GPU event out of range", e.name.str());
  // Read again with every CPU range kept (--regions '.'), then grouped:
  // each region an event in range, or a refusal with its reason.
  llvm::Regex every(".");
  if (!readKinetoRank("fuzz.json", text, 0, rank, err, errAt, nullptr, &every))
    return 0;
  size_t at = 0;
  err.clear();
  if (!groupRegions(rank, err, at)) {
    if (err.empty() || at >= size)
      finding("a refused region without a reason or place", err);
    return 0;
  }
  for (const GpuEvent &e : rank.events)
    if (!(e.dur >= 0) || !std::isfinite(e.dur) || !std::isfinite(e.ts) ||
        e.stream < 0 || e.index >= size)
      finding("an accepted region out of range", e.name.str());
#elif ENERGY_FUZZ_TARGET == 8  // kernels files (energy-prof characterize)
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  std::vector<rt::KernelSpec> kernels;
  std::vector<formats::CompositeSpec> composites;
  if (!formats::parseKernels(text, "fuzz.json", kernels, &composites, err)) {
    if (err.empty())
      finding("a refused kernels file without a reason", "");
    return 0;
  }
  // What the sweep relies on: kernels in range, composites of kernels.
  auto isKernel = [&](const std::string &key) {
    for (const rt::KernelSpec &k : kernels)
      if (k.key == key)
        return true;
    return false;
  };
  for (const rt::KernelSpec &k : kernels)
    if (k.key.empty() || !(k.flops >= 0 && k.flops <= formats::kMaxFlops) ||
        !(k.bytes >= 0 && k.bytes <= formats::kMaxBytes) ||
        (!k.reuses.empty() && !isKernel(k.reuses)))
      finding("an accepted kernel out of range", k.key);
  for (const formats::CompositeSpec &c : composites)
    for (const auto &[part, n] : c.parts)
      if (!isKernel(part) || n < 1 || n > formats::kMaxCount)
        finding("an accepted composite part that is no kernel", part);
#elif ENERGY_FUZZ_TARGET == 9  // CSV (the one reader)
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  formats::CsvTable csv;
  formats::CsvError csvErr;
  if (!formats::parseCsv(text, csv, csvErr)) {
    if (csvErr.message.empty())
      finding("a refused CSV without a reason", "");
    return 0;
  }
  // What the importers rely on: rows as wide as the header, lines rising.
  if (csv.rows.size() != csv.lines.size() || csv.headerLine < 1)
    finding("rows and line numbers disagree", "");
  unsigned last = csv.headerLine;
  for (size_t r = 0; r < csv.rows.size(); ++r) {
    if (csv.rows[r].size() != csv.header.size() || csv.lines[r] <= last)
      finding("a row of another width, or out of order", "");
    last = csv.lines[r];
  }
#elif ENERGY_FUZZ_TARGET == 10 // model files (energy-prof fit, FLOP/byte)
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  formats::ModelFile mf;
  if (!formats::parseModelFile(text, "fuzz.json", mf, err)) {
    if (err.empty())
      finding("a refused model file without a reason", "");
    return 0;
  }
  if (mf.kind != "token-law" && mf.kind != "flop-byte" &&
      mf.kind != "energylens")
    finding("an accepted model file of no known kind", mf.kind);
  // Written back, a fit reads back as itself.
  if (mf.kind == "token-law" || mf.kind == "energylens") {
    std::string once;
    llvm::raw_string_ostream os(once);
    os << llvm::json::Value(mf.kind == "token-law"
                                ? formats::tokenLawModelJson(mf.law)
                                : formats::energyLensModelJson(mf.lens));
    formats::ModelFile back;
    if (!formats::parseModelFile(once, "again.json", back, err))
      finding("a model file we wrote does not read back", err + "\n" + once);
  }
#else
#error                                                                         \
    "ENERGY_FUZZ_TARGET: 1 (DB), 2 (plan), 3 (fleet), 4 (ML.ENERGY), 7 (Kineto), 8 (kernels), 9 (CSV), 10 (model files)"
#endif
  return 0;
}
