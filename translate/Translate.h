//===- Translate.h - Importers and exporters of energy-translate -*- C++
//-*-===//

#ifndef TRANSLATE_TRANSLATE_H
#define TRANSLATE_TRANSLATE_H

#include "calculus/models/KnownDevice.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/Timing.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace energy {

struct KinetoOptions {
  std::vector<std::string> files; ///< one per rank
  /// W; required unless every device kind is in the known table.
  std::optional<double> staticPower;
  /// Opt-in energy model: d = dynamicPower * T for every GPU event.
  std::optional<double> dynamicPower;
  /// Kernel names a signature DB holds (--db-keys): each GPU event of such
  /// a name gets `db "name"` and its measured duration (`for`), for
  /// --energy-fill-signatures to give it the DB's operating set.
  std::set<std::string> dbKeys;
  /// The DB's highest SM clock, where its entries say one: the clock the
  /// trace is taken to have run at (the fill scales each key's operating
  /// set to the measured duration at that clock). A kernel the DB does not
  /// name gets its trace figures as its one option at that clock, so that a
  /// plan runs it there rather than at whatever clock precedes it.
  std::optional<int64_t> traceMhz;
  /// The DB `dbKeys` came from (for messages).
  std::string dbKeysFile;
  /// --regions: a pattern (llvm::Regex, POSIX extended) of CPU ranges
  /// (user_annotation, cpu_op: e.g. record_function's) whose launched GPU
  /// events become one task each, named as the range (groupRegions in
  /// KinetoTrace.h); empty: none.
  std::string regions;
  /// --profiler-step: the torch.profiler step to keep (keepProfilerStep in
  /// KinetoTrace.h); none: the whole trace.
  std::optional<int64_t> profilerStep;
};

/// PyTorch profiler / Kineto Chrome traces, one file per rank (.json or
/// .json.gz). Writes a per-rank summary to `summary`. Errors are printed to
/// llvm::errs() with file and event index; returns null on error. Phases
/// (reading, building the IR, verifying) are timed under `timing`.
mlir::OwningOpRef<mlir::ModuleOp> importKineto(mlir::MLIRContext *ctx,
                                               const KinetoOptions &opts,
                                               llvm::raw_ostream &summary,
                                               mlir::TimingScope &timing);

struct StageProfileOptions {
  std::string file;
  std::string schedule = "1f1b";
  int64_t microbatches = 0;
  /// The stage count the caller expects; the profile must have exactly
  /// these stages (a file cut short reads as a shorter pipeline otherwise).
  std::optional<int64_t> stages;
  std::string device;                ///< device kind, e.g. "A40"
  std::optional<double> staticPower; ///< W per GPU; else the known table
  /// Keys each stage's passes as a profiled job's regions
  /// (stage<k>.forward / stage<k>.backward: forward_db, backward_db).
  bool stageKeys = false;
};

/// The Perseus stage-profile format (`stage,instruction,frequency,time,
/// energy`): a sched.pipeline whose forward/backward tasks carry the
/// measured operating sets.
mlir::OwningOpRef<mlir::ModuleOp>
importStageProfile(mlir::MLIRContext *ctx, const StageProfileOptions &opts);

/// A signature DB whose keys name pipeline stages (`stage<k>.forward`,
/// `stage<k>.backward`, as `energy-prof profile` writes them for regions so
/// named) as Perseus's stage profile: `stage,instruction,frequency,time,
/// energy`, energy = s T + d per microbatch instruction, highest clock first.
/// `note` says the static power the energies hold (the format has no column
/// for it; --import-stage-profile assumes Perseus's blocking power).
bool exportStageProfile(const std::string &dbPath, llvm::raw_ostream &os,
                        std::string &err, std::string &note);

/// What the importers know of a device kind (calculus/models/KnownDevice.h).
using calculus::KnownDevice;
inline std::optional<KnownDevice> knownDevice(llvm::StringRef kind) {
  return calculus::knownDevice(kind.str());
}

/// The plans of the module's planned schedules as JSON (docs/PLAN.md).
mlir::LogicalResult exportPlan(mlir::ModuleOp module, llvm::raw_ostream &os);
/// The `energy.frontier` of the module's schedule as
/// `time_s,energy_J,lower_bound_J` CSV (the bound empty where uncertified).
/// A timed schedule as a Chrome JSON trace (the format PyTorch's profiler
/// writes; Perfetto, chrome://tracing): one process per device, one thread
/// per stream, a slice per task with its signature, and per device counter
/// tracks of power (static + dynamic, W) and cumulative energy (J).
mlir::LogicalResult exportPerfetto(mlir::ModuleOp module,
                                   llvm::raw_ostream &os);

mlir::LogicalResult exportFrontier(mlir::ModuleOp module,
                                   llvm::raw_ostream &os);

/// A self-contained HTML report of the module's (planned) schedule:
/// frontier, timeline, energy breakdown, clocks (docs/REPORT.md); with
/// `svgOnly`, the frontier figure alone as SVG.
mlir::LogicalResult exportReport(mlir::ModuleOp module, llvm::raw_ostream &os,
                                 bool svgOnly);

} // namespace energy

#endif // TRANSLATE_TRANSLATE_H
