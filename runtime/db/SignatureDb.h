//===- SignatureDb.h - reading, pooling and writing signature DBs -*- C++
//-*-===//
//
// The version-1 signature DB (docs/SIGNATURE-DB.md) as data: one reader
// shared by `--energy-fill-signatures` and `energy-prof merge`, the pooling
// of per-rank shards (SignatureDb.cpp: LLVM Support's JSON, not MLIR), and
// the one writer (SignatureDbWriter.cpp: no LLVM, for the runtime too).
//
//===----------------------------------------------------------------------===//

#ifndef RUNTIME_DB_SIGNATUREDB_H
#define RUNTIME_DB_SIGNATUREDB_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace energy {
namespace rt {

struct DbEntry {
  std::string key;
  int64_t smMhz = 0;
  double s = 0, T = 0, d = 0, sigmaT = 0, sigmaD = 0;
  int64_t runs = 0;   ///< 0 when the file does not say
  std::string method; ///< "" when the file does not say
  /// The context it was measured in (docs/SIGNATURE-DB.md), when recorded:
  /// L2 state ("flushed", "warm" or "unknown"; "" when not said), the
  /// device temperature at the start of the runs, the power limit, and the
  /// device's default limit then (a limit below it was set for the runs).
  std::string l2 = {};
  std::optional<double> entryTemperature = {}, powerLimit = {};
  std::optional<double> defaultPowerLimit = {};
};

struct SignatureDb {
  std::string device;
  std::vector<DbEntry> entries;
  /// What made the file (runtime/Version.h's generatorJson), written when
  /// set; reading keeps it as JSON text.
  std::string generator = {};
  /// The processes whose runs it holds (the generator's "sources"): an
  /// er_flush names its process, a merge the union of its shards'. Empty
  /// where the file does not say (older files).
  std::vector<std::string> sources = {};
};

/// Reads and validates a version-1 DB; false with `err` naming the file and
/// the entry ("PATH: entry #i: why").
bool readSignatureDb(const std::string &path, SignatureDb &out,
                     std::string &err);

/// Pools entries of the same (key, sm_mhz) across shards as if all their
/// runs were one sample: run-weighted means and the exact pooled variance
/// (sum of within-shard (n_i - 1) v_i plus between-shard n_i (m_i - m)^2,
/// over N - 1). Every pooled entry needs `runs`; methods must agree; the
/// pooled runs may not pass 2^53 (a DB's limit). Where the shards' static
/// powers differ, the pooled static power is their run-weighted mean s and
/// each run's dynamic energy is restated against it, d + (s_i - s) T, so
/// that s T + d stays the runs' mean energy; a shard's dynamic spread then
/// becomes at most sigma_d + |s_i - s| sigma_T (Cauchy-Schwarz: the runs'
/// covariance of d and T is not recorded). Static powers more than 10 %
/// apart (runs of different devices, or a units mistake) add a line to
/// `notes` where it is given.
bool poolSignatureDbs(const std::vector<SignatureDb> &shards,
                      const std::vector<std::string> &names, SignatureDb &out,
                      std::string &err,
                      std::vector<std::string> *notes = nullptr);

/// Writes a version-1 DB (JSON).
/// The DB as text (SignatureDbWriter.cpp, no LLVM: the runtime writes
/// DBs through it too).
std::string writeSignatureDb(const SignatureDb &db);

/// The GPU model a device name names: the first token of one or two letters
/// then digits, upper-cased ("A100" in "sim:A100-SXM4 (simulated)" or
/// "nvml:NVIDIA A100-SXM4-80GB", "H200" in "2xH200"); "" when none.
std::string gpuModelOf(const std::string &deviceName);

} // namespace rt
} // namespace energy

#endif // RUNTIME_DB_SIGNATUREDB_H
