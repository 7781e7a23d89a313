//===- Pipeline.h - Pipeline-parallel training schedules --------*- C++ -*-===//
//
// The exact per-stage instruction orders of GPipe, 1F1B, interleaved 1F1B
// (Megatron-LM) and ZB-H1 (zero bubble), their dependencies, data-parallel
// all-reduces and tensor-parallel device groups, as a calculus::Schedule.
// docs/SCHED.md states the orders.
//
//===----------------------------------------------------------------------===//

#ifndef CALCULUS_PIPELINE_H
#define CALCULUS_PIPELINE_H

#include "calculus/Schedule.h"

#include <string>
#include <vector>

namespace energy {
namespace calculus {

enum class PipelineKind { GPipe, OneFOneB, Interleaved, ZBH1 };

/// Parses "gpipe", "1f1b", "interleaved-1f1b", "zb-h1".
bool parsePipelineKind(const std::string &name, PipelineKind &kind);

struct PipeInstr {
  enum Type : uint8_t { F, B, W };
  Type type;
  uint32_t vstage; ///< virtual stage: chunk * stages + rank
  uint32_t microbatch;
};

/// Per rank, the instruction order. Returns false with `err` set when the
/// parameters are invalid (e.g. interleaving needs microbatches to be a
/// multiple of stages).
bool pipelineOrder(PipelineKind kind, uint32_t stages, uint32_t microbatches,
                   uint32_t chunks, std::vector<std::vector<PipeInstr>> &order,
                   std::string &err);

struct StageCost {
  double T = 0, d = 0, varT = 0, varD = 0;
};

struct PipelineSpec {
  PipelineKind kind = PipelineKind::OneFOneB;
  uint32_t stages = 1, microbatches = 1, chunks = 1;
  uint32_t dataParallel = 1, tensorParallel = 1;
  double staticPowerPerGpu = 0;
  /// Per virtual stage (stages * chunks entries).
  std::vector<StageCost> forward, backward, weight;
  StageCost allreduce;
  double allreduceLag = 0.5; ///< fraction of the last backward's time
  /// From the end of a pass to its activation or gradient being usable on
  /// the next stage's device (s): the lag of every cross-device dependency.
  double p2pLatency = 0;
  /// That latency's variance over transfers (s^2): each cross-device
  /// dependency's var_lag.
  double p2pLatencyVar = 0;
  /// The iteration's closing synchronization (s): once every device's last
  /// task has ended, all devices wait this long together (a barrier and
  /// the ranks' skew around it, measured by the job; 0: none). Static power
  /// only.
  double sync = 0;
  /// The variance of that synchronization from one iteration to the next
  /// (s^2): the sync task's var_T.
  double syncVarT = 0;
};

/// What each task of the built schedule is.
struct PipelineTaskInfo {
  enum Kind : uint8_t { F, B, W, AllReduce, Sync } kind;
  uint32_t vstage; ///< AllReduce: the rank
  uint32_t microbatch;
  uint32_t replica; ///< AllReduce: unused
};

/// Builds the schedule: devices are (replica, rank) in replica-major order,
/// each a lockstep group of `tensorParallel` GPUs with summed static power.
/// Tasks are emitted rank by rank in instruction order; stage dependencies
/// are finish-to-start; all-reduces (one per rank when dataParallel > 1) run
/// on stream 1 of every replica's device for that rank, start-to-start after
/// the rank's last backward (W for zb-h1) with lag allreduceLag * its T.
bool buildPipeline(const PipelineSpec &spec, Schedule &sched,
                   std::vector<PipelineTaskInfo> &info, std::string &err);

/// The most tasks one pipeline may expand into (docs/SCHED.md): 2^22 =
/// 4,194,304. Expanded as IR a task takes ~1.5 KB (measured: 8 x 65,536,
/// 1.5 GB), so this is ~6 GB -- a quarter of the 24 GB machines this
/// project is built on (2^23 took ~12 GB and 80 s); a 2^20-task pipeline
/// is benchmarked (bench/RESULTS.md).
constexpr uint64_t kMaxPipelineTasks = uint64_t(1) << 22;

/// How many tasks (F, B, W, all-reduces and, with `sync`, the closing
/// synchronization) the pipeline expands into, computed without overflow
/// (saturating at UINT64_MAX).
uint64_t pipelineTaskCount(PipelineKind kind, uint64_t stages,
                           uint64_t microbatches, uint64_t chunks,
                           uint64_t dataParallel, bool sync);

/// "" when the sizes fit the limit and 32-bit indices, else why not.
std::string checkPipelineSize(PipelineKind kind, uint64_t stages,
                              uint64_t microbatches, uint64_t chunks,
                              uint64_t dataParallel, bool sync);

} // namespace calculus
} // namespace energy

#endif // CALCULUS_PIPELINE_H
