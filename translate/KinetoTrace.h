//===- KinetoTrace.h - Reading PyTorch profiler (Kineto) traces -*- C++ -*-===//
//
// The reader half of --import-kineto, without MLIR (LLVM Support and zlib
// only): one Chrome-trace JSON per rank, scanned once (JsonScanner); GPU
// kernels, memcpy and memset events and the flows between GPU events are
// kept, CPU-side events counted and skipped. KinetoImport.cpp lowers the
// ranks to `sched` (docs/SCHED.md, "Kineto traces").
//
//===----------------------------------------------------------------------===//

#ifndef TRANSLATE_KINETOTRACE_H
#define TRANSLATE_KINETOTRACE_H

#include "runtime/Progress.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Regex.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace energy {

/// The `generator.tool` of our own Perfetto exports: the exporter writes it,
/// the reader keeps the export's own fields (d_J, kind, static_power_W)
/// only where it finds it.
inline constexpr const char *kPerfettoExportTool =
    "energy-translate --export-perfetto";

/// The difference `us` (us) of two trace times of magnitude up to
/// `magnitude` (us), to the whole nanosecond where it is one within their
/// rounding: the traces write nanosecond decimals, and 13.005 - 3.001 is
/// otherwise 10.004000000000001. A finer difference (our exports' times
/// are any double) is kept.
inline double wholeNanoseconds(double us, double magnitude) {
  double ns = us * 1000, whole = std::round(ns);
  double slack = 8e3 * 2.220446049250313e-16 * std::max(magnitude, 1.0);
  return std::fabs(ns - whole) <= slack ? whole / 1000 : us;
}

/// A GPU kernel, memcpy or memset event.
struct GpuEvent {
  enum Kind : uint8_t { Kernel, Memcpy, Memset } kind;
  bool nccl;
  int64_t stream;
  double ts, dur;       // us; ts after KinetoRank::usBase
  llvm::StringRef name; // owned by KinetoRank::names
  size_t index;         // in traceEvents
  size_t offset;        // of the event in the file's text (for errors)
  /// Our own exports' slices (generator.tool "energy-translate
  /// --export-perfetto") carry the task's dynamic energy (`args.d_J`, NaN
  /// where absent or another tool's trace) and kind (`args.kind`, owned by
  /// KinetoRank::names; empty where absent or another tool's trace).
  double dJ = NAN;
  llvm::StringRef taskKind;
  /// Our own exports' slices name their task (`args.task`, the schedule's
  /// symbol; owned by KinetoRank::names), which their dependency flows
  /// name (empty where absent or another tool's trace).
  llvm::StringRef task;
  /// Our own exports' spreads of the task's time and dynamic energy
  /// (`args.sigma_T_s`, `args.sigma_d_J`; 0 where absent).
  double sigmaTS = 0, sigmaDJ = 0;
  /// The CUDA runtime call that launched it (`args.correlation`; -1 where
  /// absent), read where regions or a profiler step are asked for
  /// (readKinetoRank).
  int64_t correlation = -1;
  /// A region (groupRegions): its range's begin among the process's ranges
  /// of its name, from 0, in begin order (-1: no region), and the time its
  /// events ran (us; its span less the gaps between them).
  int64_t occurrence = -1;
  double busy = NAN;
  /// A region: how many begins its range's name has in the iteration, the
  /// most of any process of the rank (-1: not known, as in our exports
  /// read back).
  int64_t begins = -1;
};

/// A CPU range (`X` event of category user_annotation or cpu_op, e.g. a
/// `torch.profiler.record_function`) whose name the regions' pattern
/// matches: the GPU events launched inside it become one region task
/// (groupRegions).
struct CpuRange {
  int64_t pid, tid;
  double ts, dur;       // us after KinetoRank::usBase
  llvm::StringRef name; // owned by KinetoRank::names
  size_t index, offset; // in traceEvents, in the file's text
  /// `ts` as read, whole us and fraction (made relative once the GPU
  /// events have set KinetoRank::usBase).
  int64_t whole = 0;
  double frac = 0;
};

/// A CUDA runtime or driver call (`cuda_runtime`, `cuda_driver`, Kineto's
/// older `Runtime`) with the correlation id its GPU event carries.
struct Launch {
  int64_t correlation, pid, tid;
  double ts;         // us after KinetoRank::usBase
  int64_t whole = 0; // as CpuRange's
  double frac = 0;
};

/// A flow event's start or end ('s' or 'f'; steps 't' are skipped), not a
/// CPU->GPU launch, by its time, place and key.
struct Flow {
  bool start = false; // 's' vs 'f'
  double ts = 0;      // us after KinetoRank::usBase
  int64_t pid = -1, tid = -1;
  std::string key; // cat + id
  size_t index = 0;
  size_t offset = 0; // of the event in the file's text (for errors)
  /// Our own exports' dependency flows carry, on their start event, the
  /// dependency's kind (`args.dependency` "start_to_start" or
  /// "finish_to_start"), lag and its spread (`args.lag_s`,
  /// `args.delay_sigma_s`) and the two tasks (`args.from`, `args.to`: the
  /// slices' `args.task`); other traces' flows are finish-to-start without a
  /// lag, bound to slices by time.
  bool startToStart = false;
  double lagS = 0, sigmaS = 0;
  std::string from, to;
  /// A flow that bound to an event groupRegions grouped: its region's
  /// traceEvents index (it binds to that region's slice; SIZE_MAX: none).
  size_t region = SIZE_MAX;
};

/// One rank's trace: its GPU events and flows, as read.
struct KinetoRank {
  std::string file;
  int64_t rank;
  std::string deviceKind;
  /// The device's static power (W) where the trace gives it: our own
  /// one-device exports (generator.tool "energy-translate --export-perfetto")
  /// write `deviceProperties[0].static_power_W`. Where that is unusable,
  /// the message and its "line:col" (an error unless --static-power).
  std::optional<double> staticPower;
  std::string staticPowerError, staticPowerErrorAt;
  /// Whole microseconds of the trace's clock that every `ts` is counted
  /// from (the first event's), so that a double keeps the nanosecond
  /// decimals of epoch timestamps (see splitMicros in KinetoTrace.cpp).
  int64_t usBase = 0;
  /// The trace gave baseTimeNanoseconds (its `ts` count from it).
  bool hasBaseTime = false;
  bool badRank = false;   ///< distributedInfo.rank was not a usable integer
  bool rankGiven = false; ///< distributedInfo.rank set `rank`
  int64_t worldSize = -1; ///< distributedInfo.world_size (-1: not given)
  std::vector<GpuEvent> events;
  int64_t gpuPid = -1;     ///< the process of the GPU events (one per file)
  std::vector<Flow> flows; ///< in the file's order
  /// Whether the file is our own export (generator.tool).
  bool ownExport = false;
  /// Our own export's assumed power model (its `energy_model`: the
  /// schedule's energy.model), "" where none or another tool's trace.
  std::string model;
  size_t skippedCpu = 0, skippedOther = 0, launchFlows = 0, flowSteps = 0;
  /// gpu_user_annotation events: a range's span on the GPU's timeline.
  size_t gpuAnnotations = 0;
  /// The matching CPU ranges, read where regions are asked for, and every
  /// launch call, read where regions or a profiler step are, in the
  /// file's order.
  std::vector<CpuRange> ranges;
  std::vector<Launch> launches;
  /// groupRegions' counts: GPU events grouped (`otherThread` of them
  /// launched on another thread than their range's), GPU events (but
  /// collectives) whose launch the trace does not have, those launched
  /// outside every matching range, and those launched on a thread of no
  /// matching range while such ranges of several other threads were open
  /// (`ambiguous`: no one region is theirs).
  size_t grouped = 0, otherThread = 0, unlaunched = 0, outside = 0,
         ambiguous = 0;
  /// groupRegions' regions none of whose begins launched a GPU event (only
  /// host work, or nothing): no task of theirs, but the job begins them;
  /// name -> its begins (the most of any process of the rank, as a region
  /// task's `begins` counts them).
  std::map<std::string, int64_t> regionsWithoutTasks;
  /// How many ranges and launches groupRegions read (it frees them), and
  /// how many launches reuse an earlier one's correlation id (their events
  /// are the first one's).
  size_t rangesRead = 0, launchesRead = 0, reusedCorrelations = 0;
  /// Regions whose range held another kept range open at some launches (a
  /// nested or overlapping one, which took them), and the first one's name.
  size_t enclosingRegions = 0;
  std::string enclosing;
  /// The CPU ranges named ProfilerStep#N, N a number written as
  /// torch.profiler writes it (its steps, one per call of its step()), in
  /// the file's order; `dur` NaN where the range has no usable time.
  std::vector<CpuRange> steps;
  /// keepProfilerStep: the step kept (-1: the whole trace), and the GPU
  /// events it dropped: launched outside that step (another step's, or
  /// between steps) and without a launch in the trace.
  int64_t step = -1;
  size_t otherSteps = 0, stepUnlaunched = 0;
  /// Owns the GPU event names.
  std::vector<std::unique_ptr<std::string>> names;
};

/// Reads one rank's trace `text` (named `file` in errors; its rank is
/// `defaultRank` unless distributedInfo.rank says otherwise). False on
/// malformed input, with `err` saying what (naming the event by its index
/// in traceEvents) and `errAt` where ("line:col", or empty where the error
/// has no one position). `progress` (may be null) is updated every 65,536
/// events.
/// `regions` (may be null) is the pattern of the CPU ranges to keep, with
/// the launches (KinetoRank::ranges, launches) for groupRegions; with
/// `launches`, the launches are kept too where no pattern is given (for
/// keepProfilerStep).
bool readKinetoRank(const std::string &file, llvm::StringRef text,
                    int64_t defaultRank, KinetoRank &out, std::string &err,
                    std::string &errAt, progress::Line *progress = nullptr,
                    const llvm::Regex *regions = nullptr,
                    bool launches = false);

/// The numbers N of the trace's profiler steps (ProfilerStep#N).
std::set<int64_t> profilerSteps(const KinetoRank &r);

/// Keeps of the trace (read with its launches) what torch.profiler's step
/// `step` holds: the GPU events launched inside its CPU range
/// `ProfilerStep#<step>` (by a thread of its process, from its begin up to
/// its end: autograd's thread launches the backward pass's), the kept CPU
/// ranges that begin inside it (so a region's begins count from the step's,
/// as the job counts them from each er_step) and the flows that bind to a
/// kept event (as flowSlice binds them among all the trace's events).
/// Events without a launch in the trace are dropped, counted. False with
/// `err` (and `errOffset`, in the file's text, where one range is at
/// fault; SIZE_MAX: none) where the trace holds no such step (naming the
/// steps it holds), two, one without a usable time, or one that launched
/// none of the trace's GPU events.
bool keepProfilerStep(KinetoRank &r, int64_t step, std::string &err,
                      size_t &errOffset);

/// The slice a flow binds to by time among one stream's events (sorted by
/// start): its start to the slice that contains it (or ends at it), its
/// end to the first slice that starts at or after it; null where none.
const GpuEvent *flowSlice(llvm::ArrayRef<const GpuEvent *> byStart,
                          const Flow &f);

/// A rank's GPU events per stream, sorted by start: what a flow binds
/// among (boundSlice).
using StreamSlices = std::map<int64_t, std::vector<const GpuEvent *>>;
StreamSlices slicesByStream(const KinetoRank &r);

/// The event flow `f` binds to by time (flowSlice on its stream, the tid
/// of a flow on the GPU's timeline); null where none, or where the flow is
/// another process's (a CPU thread's).
const GpuEvent *boundSlice(const KinetoRank &r, const StreamSlices &slices,
                           const Flow &f);

/// Replaces the GPU events (but NCCL kernels, which stay collectives, and
/// our own exports' region slices) launched inside a kept CPU range by one
/// event per range occurrence: named as the range, kind "region" (a
/// kernel, or a memcpy / memset where it holds only those), from its first
/// event's start to its last one's end, on the stream that ran most of its
/// time (of streams tied, the one whose first event started first),
/// indexed and located as the range, numbered by the range's begin among
/// the process's ranges of its name (those that launched nothing counted:
/// the job's er_begin counts them). An event belongs to the innermost kept
/// range open on its launch's thread at the launch; launched on a thread
/// with no kept range at all, to the one kept range open then on another
/// thread of the process (autograd's backward thread launches what a range
/// around backward() holds; ranges of several threads open at once: no
/// one's, counted). One without a launch record, or launched outside every
/// kept range, stays as it is (counted). False with `err` (and
/// `errOffset`, the range's in the file's text) where a region's span holds
/// an event of its stream that is not its own (one that lasts, starting or
/// ending inside it by more than the profiler's microsecond, or inside it
/// whole): its task would not hold the stream alone.
bool groupRegions(KinetoRank &r, std::string &err, size_t &errOffset);

/// Gzip data inflated into `out` (true); false with `err` empty for data
/// that is not gzip (no magic), false with `err` set for corrupt or
/// truncated gzip data and for text past one input's limit
/// (runtime/formats/Input.h).
bool inflateGzip(llvm::StringRef data, std::string &out, std::string &err);

/// Reads a file (memory-mapped when possible; "-" is standard input),
/// inflating gzip when it starts with the gzip magic. Null with `err` set
/// on failure.
std::unique_ptr<llvm::MemoryBuffer> readMaybeGzip(const std::string &path,
                                                  std::string &err);

} // namespace energy

#endif // TRANSLATE_KINETOTRACE_H
