//===- KinetoImport.cpp - PyTorch profiler (Kineto) traces ----------------===//
//
// One Chrome-trace JSON per rank. GPU kernels, memcpy and memset become
// sched.task with measured start and duration on (rank device, stream); NCCL
// kernels become sched.collective matched across ranks by (kernel name,
// occurrence); flow events other than CPU->GPU launches (ac2g) that link two
// GPU events become dependencies; CPU-side events are skipped and counted.
//
//===----------------------------------------------------------------------===//

#include "translate/Translate.h"

#include "calculus/Schedule.h"
#include "runtime/Progress.h"
#include "runtime/plan/Plan.h"
#include "translate/KinetoTrace.h"

#include "dialect/Energy/Energy.h"
#include "dialect/Energy/Units.h"
#include "dialect/Sched/Sched.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/WithColor.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <queue>
#include <set>
#include <tuple>

using namespace mlir;
using namespace energy;

namespace {

/// One event's wait on another, from a flow: the predecessor, and the
/// flow's start event (its dependency kind and lag).
struct FlowDep {
  const GpuEvent *pred;
  const Flow *start;
};

/// A rank's flows bound to its GPU events: per event, the events it waits
/// for; and the flows that bind to none.
struct FlowDeps {
  llvm::DenseMap<const GpuEvent *, SmallVector<FlowDep>> of;
  /// Flows not between two GPU events of the rank (a start or end on no
  /// slice of its streams, on another process, unpaired) and, in another
  /// tool's trace, those whose wait the recorded times contradict.
  size_t unbound = 0, contradicted = 0;
  /// Finish-to-start waits without a lag of a rank's kernel of a
  /// collective on another of its GPU events: that part's own
  /// dependencies (`part_after`).
  llvm::DenseMap<const GpuEvent *, SmallVector<const GpuEvent *>> ofCollective;
  /// Flows from a collective's kernel, and those to one by name (our
  /// exports'), with a lag or of a start-to-start kind (not carried).
  size_t collective = 0;
  /// Waits carried into `ofCollective`.
  size_t collectiveWaits = 0;
};

/// A task's waits from its flows: finish-to-start predecessors (`after`,
/// one `delay` and `delay_sigma`) and start-to-start ones (`with`, one
/// `lag`). A sched.task holds one delay and one lag: a flow whose differs
/// from the others' of its kind is an error.
struct Waits {
  ArrayAttr after, with;
  FloatAttr delay, sigma, lag;
};

class Importer {
public:
  explicit Importer(const KinetoOptions &opts)
      : opts(opts), regions(opts.regions) {}
  bool load(size_t fileIndex);
  /// The module: a sched.schedule of every rank's GPU events (sorted by
  /// rank), collectives matched across ranks.
  OwningOpRef<ModuleOp> build(MLIRContext *ctx, llvm::raw_ostream &summary,
                              TimingScope &timing);

  std::vector<KinetoRank> ranks;
  /// Progress within a trace file (null: none).
  progress::Line *progressLine = nullptr;

private:
  /// Per collective key, per rank, its kernels in order.
  using Collectives =
      llvm::MapVector<StringRef, std::vector<std::vector<const GpuEvent *>>>;
  bool staticPowers(std::vector<double> &out);
  double commonOrigin();
  bool streamsSerial(double origin);
  bool matchCollectives(Collectives &colls);
  bool flowDependencies(const KinetoRank &r, double origin, FlowDeps &out);
  bool waitsOf(OpBuilder &b, const KinetoRank &r, ArrayRef<FlowDep> deps,
               Waits &w);
  bool emitRank(OpBuilder &b, const KinetoRank &r, FlatSymbolRefAttr device,
                double origin, llvm::raw_ostream &summary);
  bool emitCollectives(OpBuilder &b, const Collectives &colls,
                       ArrayRef<FlatSymbolRefAttr> devices, double origin);
  bool orderByStarts(sched::ScheduleOp sched,
                     ArrayRef<FlatSymbolRefAttr> devices);
  /// Whether --dynamic-power priced any event (those with their own d_J,
  /// our exports', keep it).
  bool modelUsed = false;
  /// Whether a --db-keys DB holds the name of some GPU event (but a
  /// collective's) of any rank.
  bool anyNamed = false;
  /// Per rank's kernel of a collective, the tasks it waits for (its part's
  /// `part_after`), from emitRank for emitCollectives.
  llvm::DenseMap<const GpuEvent *, SmallVector<Attribute>> partWaits;
  bool error(const std::string &file, const Twine &msg) {
    llvm::WithColor::error(llvm::errs(), file) << msg << "\n";
    return false;
  }
  /// A time (us after usBase) as the trace writes it, to the nanosecond.
  std::string usText(double ts) const {
    // Whole nanoseconds of the absolute time, printed as us with 3
    // decimals (a negative time's fraction counts away from zero).
    double w = std::floor(ts);
    int64_t ns = (usBase + int64_t(w)) * 1000 + std::llround((ts - w) * 1000);
    uint64_t mag = ns < 0 ? uint64_t(-(ns + 1)) + 1 : uint64_t(ns);
    char buf[48];
    std::snprintf(buf, sizeof buf, "%s%llu.%03llu", ns < 0 ? "-" : "",
                  (unsigned long long)(mag / 1000),
                  (unsigned long long)(mag % 1000));
    return buf;
  }
  /// Whole microseconds every rank's times count from (commonOrigin).
  int64_t usBase = 0;
  const KinetoOptions &opts;
  /// --regions' pattern (checked by importKineto).
  llvm::Regex regions;
};

static std::string lineColOf(const std::string &file, size_t offset);

bool Importer::load(size_t fileIndex) {
  const std::string &file = opts.files[fileIndex];
  std::string err;
  std::unique_ptr<llvm::MemoryBuffer> text = readMaybeGzip(file, err);
  if (!text)
    return error(file, err);
  KinetoRank r;
  std::string errAt;
  if (!readKinetoRank(file, text->getBuffer(), int64_t(fileIndex), r, err,
                      errAt, progressLine,
                      opts.regions.empty() ? nullptr : &regions,
                      opts.profilerStep.has_value()))
    return error(errAt.empty() ? file : file + ":" + errAt, err);
  size_t errOffset = 0;
  if (opts.profilerStep &&
      !keepProfilerStep(r, *opts.profilerStep, err, errOffset))
    return error(
        errOffset == SIZE_MAX ? file : file + lineColOf(file, errOffset), err);
  if (!opts.regions.empty() && !groupRegions(r, err, errOffset))
    return error(file + lineColOf(file, errOffset), err);
  for (const KinetoRank &other : ranks)
    if (other.rank == r.rank)
      return error(file,
                   "rank " + Twine(r.rank) + " also comes from " + other.file);
  ranks.push_back(std::move(r));
  return true;
}

/// Microseconds to seconds as a correctly rounded decimal shift, so that
/// 2063 us is exactly the double nearest 2.063e-3 (prints as "2.063 ms").
static double usToSeconds(double us) { return applyScale(us, -6); }

/// A trace time in seconds after the origin, to the nanosecond the trace
/// writes (wholeNanoseconds).
static double sinceOrigin(double ts, double origin) {
  return usToSeconds(wholeNanoseconds(
      ts - origin, std::max(std::fabs(ts), std::fabs(origin))));
}

/// ":LINE:COL" of byte `offset` of `file` (read again: an error's path
/// only), or "" where it cannot be read again (standard input).
static std::string lineColOf(const std::string &file, size_t offset) {
  std::string err;
  std::unique_ptr<llvm::MemoryBuffer> buf =
      file == "-" ? nullptr : readMaybeGzip(file, err);
  if (!buf || offset > buf->getBufferSize())
    return "";
  llvm::StringRef text = buf->getBuffer().take_front(offset);
  size_t line = 1 + text.count('\n');
  size_t col =
      offset -
      (text.rfind('\n') == llvm::StringRef::npos ? 0 : text.rfind('\n') + 1) +
      1;
  return ":" + std::to_string(line) + ":" + std::to_string(col);
}

/// A CUDA stream runs one kernel, copy or set at a time: two of a rank's
/// events that overlap on one stream (a corrupted trace, or one whose clock
/// jumped) are named by their traceEvents index, as the schedule's verifier
/// would refuse them. An overlap of at most a microsecond -- the profiler's
/// timestamps are that coarse, and real traces have them (pytorch/kineto
/// issue 136) -- ends the earlier event where the later one begins, counted
/// and said. Events sorted by start (commonOrigin).
bool Importer::streamsSerial(double origin) {
  size_t clipped = 0;
  double mostClipped = 0;
  std::string clippedFile;
  for (KinetoRank &r : ranks) {
    llvm::DenseMap<int64_t, GpuEvent *> latest; // per stream
    for (GpuEvent &e : r.events) {
      // (A collective's kernel too: it runs on its stream like any other.)
      if (!(e.dur > 0))
        continue;
      GpuEvent *&held = latest[e.stream];
      if (held) {
        double end = usToSeconds(held->ts - origin + held->dur);
        double overlapUs = held->ts + held->dur - e.ts;
        if (usToSeconds(e.ts - origin) < end - calculus::timeTolerance(end) &&
            overlapUs <= 1.0 && overlapUs < held->dur &&
            e.ts + e.dur > held->ts + held->dur) {
          // To the nanosecond, the finest the traces write.
          held->dur = std::round((e.ts - held->ts) * 1000) / 1000;
          ++clipped;
          mostClipped = std::max(mostClipped, overlapUs);
          if (clippedFile.empty())
            clippedFile = r.file;
        } else if (usToSeconds(e.ts - origin) <
                   end - calculus::timeTolerance(end))
          return error(r.file + lineColOf(r.file, e.offset),
                       llvm::formatv(
                           "traceEvents[{0}] ('{1}') starts at {2} us on "
                           "stream {3}, before traceEvents[{4}] ('{5}') on "
                           "that stream ends at {6} us: a stream runs one "
                           "event at a time (a corrupted trace, or one whose "
                           "clock jumped)",
                           e.index, e.name, usText(e.ts), e.stream, held->index,
                           held->name, usText(held->ts + held->dur))
                           .str());
        if (e.ts + e.dur <= held->ts + held->dur)
          continue;
      }
      held = &e;
    }
  }
  if (clipped)
    llvm::WithColor::warning(llvm::errs(), clippedFile)
        << clipped << " event(s) overlapped the next on their stream by at "
        << "most " << llvm::formatv("{0:F3}", mostClipped)
        << " us (the profiler's timestamps are that coarse): each now ends "
           "where the next begins\n";
  return true;
}

/// Collective key: the kernel name without its parameter list.
StringRef collectiveKey(StringRef name) { return name.split('(').first; }

/// The static power of every rank's device (sorted ranks), or an error.
bool Importer::staticPowers(std::vector<double> &out) {
  for (const KinetoRank &r : ranks) {
    if (!opts.staticPower && !r.staticPowerError.empty())
      return error(r.file + ":" + r.staticPowerErrorAt,
                   r.staticPowerError + "; --static-power W overrides it");
    std::optional<KnownDevice> known = knownDevice(r.deviceKind);
    // --static-power, else the trace's own (our exports), else the table.
    std::optional<double> s = opts.staticPower ? opts.staticPower
                              : r.staticPower  ? r.staticPower
                              : known
                                  ? std::optional<double>(known->staticPower)
                                  : std::nullopt;
    if (!s)
      return error(r.file, (r.deviceKind.empty()
                                ? std::string("the trace names no device (no "
                                              "deviceProperties[0].name)")
                                : "unknown device '" + r.deviceKind + "'") +
                               ": no known static power (known: A40, A100-SXM, "
                               "H200); pass --static-power (W)");
    out.push_back(*s);
  }
  return true;
}

/// Common clock: the traces share wall-clock timestamps (us); the origin is
/// the earliest GPU event of any rank. Counts every rank's times from one
/// base (usBase: an exact integer shift) and sorts its events by start.
double Importer::commonOrigin() {
  bool any = false;
  for (const KinetoRank &r : ranks)
    if (!r.events.empty() || !r.flows.empty()) {
      usBase = any ? std::min(usBase, r.usBase) : r.usBase;
      any = true;
    }
  double origin = INFINITY;
  for (KinetoRank &r : ranks) {
    double shift = double(r.usBase - usBase);
    r.usBase = usBase;
    for (GpuEvent &e : r.events)
      e.ts += shift;
    for (Flow &f : r.flows)
      f.ts += shift;
    std::sort(r.events.begin(), r.events.end(),
              [](const GpuEvent &a, const GpuEvent &b) {
                return a.ts < b.ts || (a.ts == b.ts && a.index < b.index);
              });
    for (const GpuEvent &e : r.events)
      origin = std::min(origin, e.ts);
  }
  return std::isfinite(origin) ? origin : 0;
}

/// Matches collectives across ranks: the k-th kernel of one NCCL name on
/// each rank is one collective. Every rank must issue the same collectives.
bool Importer::matchCollectives(Collectives &colls) {
  for (size_t ri = 0; ri < ranks.size(); ++ri)
    for (const GpuEvent &e : ranks[ri].events)
      if (e.nccl) {
        auto &perRank = colls[collectiveKey(e.name)];
        perRank.resize(ranks.size());
        perRank[ri].push_back(&e);
      }
  for (auto &[key, perRank] : colls) {
    perRank.resize(ranks.size());
    for (size_t ri = 1; ri < ranks.size(); ++ri)
      if (perRank[ri].size() != perRank[0].size())
        return error(ranks[ri].file,
                     llvm::formatv("ranks disagree on collectives: rank {0} "
                                   "issues {1} x {2} but rank {3} issues {4}",
                                   ranks[ri].rank, perRank[ri].size(), key,
                                   ranks[0].rank, perRank[0].size())
                         .str());
  }
  return true;
}

/// Binds the rank's flows. Our own exports name both tasks (`args.from`,
/// `args.to`): bound by name, and a name that is no slice's is an error.
/// Other flows bind by time (the slice starting at or after the end, on its
/// stream, waits for the slice containing the start, in the rank's GPU
/// process), paired in file order (an id may start again once its flow has
/// ended); those that bind to no two slices are skipped and counted. A wait
/// the recorded times contradict is an error in our exports, skipped and
/// counted in another tool's trace.
bool Importer::flowDependencies(const KinetoRank &r, double origin,
                                FlowDeps &out) {
  StreamSlices slices = slicesByStream(r);
  llvm::StringMap<const GpuEvent *> byTask;
  for (const GpuEvent &e : r.events) {
    if (!e.task.empty() && !byTask.try_emplace(e.task, &e).second)
      return error(r.file + lineColOf(r.file, e.offset),
                   "traceEvents[" + Twine(e.index) +
                       "]: a second slice of "
                       "task '" +
                       e.task + "' (the first is traceEvents[" +
                       Twine(byTask.lookup(e.task)->index) +
                       "]): the dependencies that name it would be ambiguous");
  }
  llvm::DenseMap<size_t, const GpuEvent *> regionAt; // by traceEvents index
  for (const GpuEvent &e : r.events)
    if (e.occurrence >= 0)
      regionAt[e.index] = &e;
  // The wait holds in the recorded times (to the schedule's tolerance).
  auto holds = [&](const GpuEvent *from, const GpuEvent *to, const Flow &f) {
    double ready = usToSeconds(from->ts - origin) +
                   (f.startToStart ? 0 : usToSeconds(from->dur)) + f.lagS;
    return usToSeconds(to->ts - origin) >=
           ready - calculus::timeTolerance(ready);
  };
  auto add = [&](const GpuEvent *from, const GpuEvent *to, const Flow &f) {
    // A rank's kernel of a collective (matched across ranks) waits for
    // another of the rank's events: that part's own wait, which holds it
    // and not the other ranks' parts. A collective's part finishing is no
    // one event's predecessor (the parts end apart), and a part holds no
    // delay or lag: those are not carried.
    // (Our exports' flows name the collective, which every rank's part
    // bears: bound by name in a trace split per process, such a flow finds
    // the predecessor's rank's part, which may not be the one that waited.
    // Only flows bound by time, on this rank's streams, are carried.)
    if (to->nccl && !from->nccl && !f.startToStart && f.lagS == 0 &&
        f.sigmaS == 0 && f.to.empty()) {
      SmallVector<const GpuEvent *> &preds = out.ofCollective[to];
      if (!llvm::is_contained(preds, from)) {
        preds.push_back(from);
        ++out.collectiveWaits;
      }
      return;
    }
    if (from->nccl || to->nccl) {
      ++out.collective;
      return;
    }
    SmallVector<FlowDep> &deps = out.of[to];
    for (const FlowDep &d : deps)
      if (d.pred == from && d.start->startToStart == f.startToStart &&
          d.start->lagS == f.lagS)
        return; // the same wait twice
    deps.push_back({from, &f});
  };
  // A wait the recorded times contradict: an error in our own exports
  // (written from a timed schedule), skipped in another tool's trace.
  auto contradicted = [&](const GpuEvent *from, const GpuEvent *to,
                          const Flow &f) {
    if (!r.ownExport) {
      ++out.contradicted;
      return true;
    }
    return error(
        r.file + lineColOf(r.file, f.offset),
        llvm::formatv("traceEvents[{0}]: '{1}' starts at {2} us, before its "
                      "{3} dependency on '{4}' allows ({4} {5} at {6} us, lag "
                      "{7} s): the trace's times contradict it",
                      f.index, to->task.empty() ? to->name : to->task,
                      usText(to->ts),
                      f.startToStart ? "start-to-start" : "finish-to-start",
                      from->task.empty() ? from->name : from->task,
                      f.startToStart ? "starts" : "ends",
                      usText(from->ts + (f.startToStart ? 0 : from->dur)),
                      formatNumber(f.lagS))
            .str());
  };
  // Flows whose start named both tasks (their ends add nothing), and those
  // started but not yet ended, by key.
  std::set<std::string> named;
  std::map<std::string, std::pair<const Flow *, const GpuEvent *>> open;
  for (const Flow &f : r.flows) {
    if (f.start && (!f.from.empty() || !f.to.empty())) {
      // Our export's flow: bound by the tasks it names.
      named.insert(f.key);
      const GpuEvent *from = byTask.lookup(f.from), *to = byTask.lookup(f.to);
      // A task that is no slice of this file: another rank's (a
      // multi-device export split per process) -- not this rank's wait.
      if (!from || !to) {
        ++out.unbound;
        continue;
      }
      if (from == to)
        return error(r.file + lineColOf(r.file, f.offset),
                     "traceEvents[" + Twine(f.index) + "]: '" + f.from +
                         "' depends on itself");
      if (!holds(from, to, f)) {
        if (!contradicted(from, to, f))
          return false;
      } else {
        add(from, to, f);
      }
      continue;
    }
    if (!f.start && named.erase(f.key))
      continue; // the end of a named flow
    const GpuEvent *bound = boundSlice(r, slices, f);
    // One that bound to an event --regions grouped: its region's slice.
    if (f.region != SIZE_MAX)
      bound = regionAt.lookup(f.region);
    if (f.start) {
      if (open.count(f.key))
        ++out.unbound; // a start never ended: its id starts again
      open[f.key] = {&f, bound};
      continue;
    }
    auto it = open.find(f.key);
    if (it == open.end()) {
      ++out.unbound; // an end without a start
      continue;
    }
    auto [startFlow, from] = it->second;
    open.erase(it);
    if (from && from == bound && from->occurrence >= 0 &&
        startFlow->region != SIZE_MAX && f.region != SIZE_MAX)
      continue; // between two events of one region: inside its task
    if (!from || !bound || from == bound)
      ++out.unbound;
    else if (!holds(from, bound, *startFlow)) {
      if (!contradicted(from, bound, *startFlow))
        return false;
    } else {
      add(from, bound, *startFlow);
    }
  }
  out.unbound += open.size();
  return true;
}

/// A region's task dictionary: its name, its begin and (where known) how
/// many begins its name has (the most of any process of the rank).
static DictionaryAttr regionTheta(OpBuilder &b, const GpuEvent &e) {
  SmallVector<NamedAttribute> fields = {
      b.getNamedAttr("name", b.getStringAttr(e.name)),
      b.getNamedAttr("occurrence", b.getI64IntegerAttr(e.occurrence))};
  if (e.begins > e.occurrence)
    fields.push_back(b.getNamedAttr("begins", b.getI64IntegerAttr(e.begins)));
  return b.getDictionaryAttr(fields);
}

/// A GPU event's task name: its rank and index in traceEvents.
static StringAttr taskName(OpBuilder &b, const KinetoRank &r,
                           const GpuEvent &e) {
  return b.getStringAttr("r" + std::to_string(r.rank) + "_e" +
                         std::to_string(e.index));
}

bool Importer::waitsOf(OpBuilder &b, const KinetoRank &r,
                       ArrayRef<FlowDep> deps, Waits &w) {
  SmallVector<Attribute> finish, start;
  const Flow *finishFirst = nullptr, *startFirst = nullptr;
  for (const FlowDep &dep : deps) {
    const Flow &f = *dep.start;
    StringAttr pred = taskName(b, r, *dep.pred);
    const Flow *&first = f.startToStart ? startFirst : finishFirst;
    if (!first)
      first = &f;
    else if (first->lagS != f.lagS || first->sigmaS != f.sigmaS)
      return error(
          r.file + lineColOf(r.file, f.offset),
          llvm::formatv(
              "traceEvents[{0}]: a {1} dependency with lag {2} s "
              "(spread {3} s), where the flow traceEvents[{4}] into the "
              "same task has lag {5} s (spread {6} s): a task holds one "
              "lag per kind of dependency",
              f.index, f.startToStart ? "start-to-start" : "finish-to-start",
              formatNumber(f.lagS), formatNumber(f.sigmaS), first->index,
              formatNumber(first->lagS), formatNumber(first->sigmaS))
              .str());
    (f.startToStart ? start : finish).push_back(FlatSymbolRefAttr::get(pred));
  }
  if (!finish.empty()) {
    w.after = b.getArrayAttr(finish);
    if (finishFirst->lagS > 0 || finishFirst->sigmaS > 0)
      w.delay = b.getF64FloatAttr(finishFirst->lagS);
    if (finishFirst->sigmaS > 0)
      w.sigma = b.getF64FloatAttr(finishFirst->sigmaS);
  }
  if (!start.empty()) {
    w.with = b.getArrayAttr(start);
    if (startFirst->lagS > 0)
      w.lag = b.getF64FloatAttr(startFirst->lagS);
  }
  return true;
}

/// A rank's GPU events but its collectives as tasks on its device, and its
/// line of the summary.
bool Importer::emitRank(OpBuilder &b, const KinetoRank &r,
                        FlatSymbolRefAttr device, double origin,
                        llvm::raw_ostream &summary) {
  MLIRContext *ctx = b.getContext();
  StringAttr kKernel = b.getStringAttr("kernel"),
             kMemcpy = b.getStringAttr("memcpy"),
             kMemset = b.getStringAttr("memset");
  FlowDeps flows;
  if (!flowDependencies(r, origin, flows))
    return false;
  for (const auto &[coll, preds] : flows.ofCollective) {
    SmallVector<Attribute> &names = partWaits[coll];
    for (const GpuEvent *pred : preds)
      names.push_back(FlatSymbolRefAttr::get(taskName(b, r, *pred)));
  }
  Location rankLoc = FileLineColLoc::get(ctx, r.file, 0, 0);
  size_t kernels = 0, memcpys = 0, memsets = 0, nccl = 0, keyedTasks = 0,
         pinnedTasks = 0, regionTasks = 0;
  double first = INFINITY, last = -INFINITY;
  for (const GpuEvent &e : r.events) {
    first = std::min(first, e.ts);
    last = std::max(last, e.ts + e.dur);
    (e.taskKind == "region"       ? regionTasks
     : e.kind == GpuEvent::Kernel ? kernels
     : e.kind == GpuEvent::Memcpy ? memcpys
                                  : memsets)++;
    if (e.nccl) {
      ++nccl;
      continue; // emitted as collectives (emitCollectives)
    }
    StringAttr name = taskName(b, r, e);
    Waits w;
    if (auto it = flows.of.find(&e); it != flows.of.end())
      if (!waitsOf(b, r, it->second, w))
        return false;
    // One location per rank file: op names carry the event index
    // (r<rank>_e<index>), and a million distinct locations cost seconds.
    Location loc = rankLoc;
    // The slice's own dynamic energy (our exports) wins over the opt-in
    // model: it is what the exported schedule evaluated.
    SignatureAttr sig;
    // A kernel the DB names: its measured duration and the key; the DB
    // prices it (--energy-fill-signatures), not the assumed model.
    // (A zero-length event has no duration to scale an operating set to.)
    // A region (--regions) the DB names is priced at the DB's figures as
    // they are, not scaled to its span here: the DB measured that region
    // (the job's window, from its begin to its end, launch gaps and edge
    // synchronizations included), which the span of its kernels in the
    // trace understates (a span of zero length too: nothing scales to it).
    // Under --regions only regions are keyed: a kernel outside every
    // region runs at whatever clock the region before it left (no region
    // of the job sets one), so no plan may choose one for it.
    bool region = e.occurrence >= 0;
    bool keyed = !opts.dbKeys.empty() && (e.dur > 0 || region) &&
                 (opts.regions.empty() || region) &&
                 opts.dbKeys.count(e.name.str()) > 0;
    keyedTasks += keyed;
    if (!keyed && !std::isnan(e.dJ))
      sig = SignatureAttr::get(ctx, usToSeconds(e.dur), e.dJ, e.sigmaTS,
                               e.sigmaDJ, std::nullopt, std::nullopt);
    else if (!keyed && opts.dynamicPower) {
      // A region draws it while its events run, not in the gaps between
      // them (its span).
      double busy = std::isnan(e.busy) ? e.dur : e.busy;
      sig = SignatureAttr::get(ctx, usToSeconds(e.dur),
                               usToSeconds(*opts.dynamicPower * busy), 0, 0,
                               std::nullopt, std::nullopt);
      modelUsed = true;
    }
    // A kernel the DB does not name, in a trace where it names some: its
    // figures (--dynamic-power's model) hold at the clock the trace ran at,
    // so that is its one option (a plan that lowers the clock around it
    // sets it back for it). Memcpys and memsets run on the copy engines and
    // the memory clock, not the SM clock a plan sets; a slice with its own
    // d_J (our exports) was priced at a clock the trace does not say: both
    // keep whatever clock is in force. So does, under --regions, a kernel
    // outside every region: no region of the job sets a clock for it (it
    // runs at the clock the region before it leaves).
    ArrayAttr pinned;
    if (!keyed && sig && anyNamed && opts.traceMhz && std::isnan(e.dJ) &&
        e.kind == GpuEvent::Kernel && (opts.regions.empty() || region)) {
      pinned = b.getArrayAttr(
          {OptionAttr::get(ctx,
                           OpPointAttr::get(ctx, *opts.traceMhz, std::nullopt,
                                            std::nullopt, std::nullopt),
                           sig)});
      ++pinnedTasks;
    }
    auto task = sched::TaskOp::create(
        b, loc, name, device, b.getI64IntegerAttr(e.stream), w.after, w.delay,
        w.sigma, w.with, w.lag, FloatAttr(),
        !e.taskKind.empty()          ? b.getStringAttr(e.taskKind)
        : e.kind == GpuEvent::Kernel ? kKernel
        : e.kind == GpuEvent::Memcpy ? kMemcpy
                                     : kMemset,
        region ? regionTheta(b, e)
               : b.getDictionaryAttr(
                     {b.getNamedAttr("name", b.getStringAttr(e.name))}),
        sinceOrigin(e.ts, origin),
        sig || (keyed && region) ? std::nullopt
                                 : std::optional<double>(usToSeconds(e.dur)),
        sig, keyed ? b.getStringAttr(e.name) : StringAttr(), pinned);
    // The measured duration, kept where a plan rewrites `for`: the fill
    // scales the key's operating set to it, planned or not.
    if (keyed && !region)
      task->setAttr(EnergyDialect::Measured_TAttrHelper::getNameStr(),
                    b.getF64FloatAttr(usToSeconds(e.dur)));
  }
  summary << llvm::formatv(
      "rank {0}: {1} kernels ({2} collective), {3} memcpy, {4} memset{5}; "
      "makespan {6} us; skipped {7} CPU-side events, {8} launch flows, {9} "
      "other",
      r.rank, kernels, nccl, memcpys, memsets,
      regionTasks ? ", " + std::to_string(regionTasks) + " regions" : "",
      formatNumber(r.events.empty() ? 0.0 : last - first), r.skippedCpu,
      r.launchFlows, r.skippedOther);
  if (r.gpuAnnotations)
    summary << llvm::formatv(", {0} GPU-side annotations (gpu_user_annotation)",
                             r.gpuAnnotations);
  size_t dropped = flows.unbound + flows.contradicted + flows.collective;
  if (flows.collectiveWaits)
    summary << llvm::formatv(", {0} waits of its parts of collectives",
                             flows.collectiveWaits);
  if (dropped || r.flowSteps)
    summary << llvm::formatv(", {0} flows between no two of its GPU events, "
                             "{1} whose wait its times contradict, {2} out "
                             "of a collective's kernel or into one by name "
                             "or with a lag, {3} flow steps",
                             flows.unbound, flows.contradicted,
                             flows.collective, r.flowSteps);
  if (r.step >= 0)
    summary << llvm::formatv(", profiler step {0} (--profiler-step): {1} GPU "
                             "events launched outside it and {2} without a "
                             "launch in the trace left out",
                             r.step, r.otherSteps, r.stepUnlaunched);
  if (!opts.regions.empty())
    summary << llvm::formatv(
        ", {0} GPU events grouped into the regions (--regions; {1} of them "
        "launched on another thread than their range's), {2} launched "
        "outside every matching range, {3} without a launch in the trace",
        r.grouped, r.otherThread, r.outside, r.unlaunched);
  if (r.ambiguous)
    summary << llvm::formatv(", {0} launched by a thread of no matching "
                             "range while ranges of several others were "
                             "open (no one region's)",
                             r.ambiguous);
  if (r.reusedCorrelations)
    summary << llvm::formatv(", {0} launches reuse an earlier launch's "
                             "correlation id (its events are the earlier's)",
                             r.reusedCorrelations);
  if (!opts.dbKeys.empty()) {
    // With --regions a task is a region's GPU events, or one other's.
    summary << llvm::formatv(", {0} {1} named by the DB (--db-keys)",
                             keyedTasks,
                             opts.regions.empty() ? "GPU events" : "tasks");
    if (pinnedTasks)
      summary << llvm::formatv(", {0} kernels it does not name held at "
                               "{1} MHz",
                               pinnedTasks, *opts.traceMhz);
  }
  summary << "\n";
  if (dropped)
    llvm::WithColor::warning(llvm::errs(), r.file)
        << dropped << " flow(s) are not dependencies: " << flows.unbound
        << " bind to no two of the rank's GPU events (an end on no slice, "
           "another process's, or unpaired), "
        << flows.contradicted
        << " ask a wait its recorded times contradict, and " << flows.collective
        << " leave a collective's kernel or reach one by name or with a "
           "lag\n";
  if (r.events.empty())
    llvm::WithColor::warning(llvm::errs(), r.file)
        << "no GPU events (kernels, memcpy, memset) in this trace: rank "
        << r.rank << " is empty (was the profiler recording CUDA?)\n";
  return true;
}

/// Each matched collective as a measured sched.collective over every rank.
bool Importer::emitCollectives(OpBuilder &b, const Collectives &colls,
                               ArrayRef<FlatSymbolRefAttr> devices,
                               double origin) {
  MLIRContext *ctx = b.getContext();
  size_t ci = 0;
  for (auto &[key, perRank] : colls) {
    for (size_t k = 0; k < perRank[0].size(); ++k) {
      SmallVector<Attribute> devs, starts, durs, energies, streams, waits;
      bool anyWait = false;
      for (size_t ri = 0; ri < ranks.size(); ++ri) {
        const GpuEvent *e = perRank[ri][k];
        devs.push_back(devices[ri]);
        auto w = partWaits.find(e);
        anyWait |= w != partWaits.end();
        waits.push_back(w == partWaits.end() ? b.getArrayAttr({})
                                             : b.getArrayAttr(w->second));
        starts.push_back(b.getF64FloatAttr(sinceOrigin(e->ts, origin)));
        durs.push_back(b.getF64FloatAttr(usToSeconds(e->dur)));
        // The slice's own dynamic energy (our exports), else the model.
        if (!std::isnan(e->dJ))
          energies.push_back(b.getF64FloatAttr(e->dJ));
        else if (opts.dynamicPower) {
          energies.push_back(
              b.getF64FloatAttr(usToSeconds(*opts.dynamicPower * e->dur)));
          modelUsed = true;
        }
        streams.push_back(b.getI64IntegerAttr(e->stream));
      }
      std::string kind = key.contains("AllReduce")       ? "allreduce"
                         : key.contains("AllGather")     ? "allgather"
                         : key.contains("ReduceScatter") ? "reducescatter"
                         : key.contains("SendRecv")      ? "sendrecv"
                         : key.contains("Broadcast")     ? "broadcast"
                                                         : "collective";
      sched::CollectiveOp::create(
          b, FileLineColLoc::get(ctx, ranks[0].file, 0, perRank[0][k]->index),
          b.getStringAttr("c" + std::to_string(ci++)), b.getArrayAttr(devs),
          IntegerAttr(), ArrayAttr(),
          anyWait ? b.getArrayAttr(waits) : ArrayAttr(), ArrayAttr(),
          FloatAttr(),
          b.getStringAttr(!perRank[0][k]->taskKind.empty() &&
                                  perRank[0][k]->taskKind != "kernel"
                              ? perRank[0][k]->taskKind.str()
                              : kind),
          b.getDictionaryAttr(
              {b.getNamedAttr("instance", b.getI64IntegerAttr(k)),
               b.getNamedAttr("name", b.getStringAttr(key))}),
          FloatAttr(), SignatureAttr(), b.getArrayAttr(starts),
          b.getArrayAttr(durs),
          energies.size() == devs.size() ? b.getArrayAttr(energies)
                                         : ArrayAttr(),
          b.getArrayAttr(streams));
    }
  }
  return true;
}

/// Program order is stream order: every (device, stream) must list its
/// tasks and collectives in the order they ran there. Each task runs on one
/// rank, a collective on all of them at per-rank starts, so one order by
/// start cannot serve every rank when their clocks or progress differ: the
/// order is a topological merge of every (device, stream)'s events in
/// recorded-start order, the earliest start (then the trace's order) first
/// among those ready. Emitted after every rank's tasks, a collective would
/// follow them on a stream it shares with them, and timing would move it
/// past them. A cycle (ranks that ran two collectives of one stream in
/// opposite orders) is an error naming them.
bool Importer::orderByStarts(sched::ScheduleOp sched,
                             ArrayRef<FlatSymbolRefAttr> devices) {
  llvm::StringMap<size_t> deviceIndex;
  for (size_t i = 0; i < devices.size(); ++i)
    deviceIndex[devices[i].getValue()] = i;
  Block &body = sched.getBody().front();
  std::vector<Operation *> items;
  std::vector<double> first; // each item's earliest start
  // (device, stream) -> (start, item) of what ran there.
  std::map<std::pair<size_t, int64_t>, std::vector<std::pair<double, size_t>>>
      lanes;
  for (Operation &op : body) {
    size_t item = items.size();
    if (auto task = dyn_cast<sched::TaskOp>(&op)) {
      double start = task.getStart().value_or(0);
      int64_t stream = task.getStreamAttr() ? task.getStreamAttr().getInt() : 0;
      lanes[{deviceIndex.lookup(task.getDevice()), stream}].push_back(
          {start, item});
      first.push_back(start);
    } else if (auto coll = dyn_cast<sched::CollectiveOp>(&op)) {
      ArrayAttr starts = coll.getStartsAttr(), streams = coll.getStreamsAttr();
      double earliest = INFINITY;
      for (size_t k = 0; k < coll.getDevices().size(); ++k) {
        double start =
            starts ? cast<FloatAttr>(starts[k]).getValueAsDouble() : 0;
        int64_t stream = streams ? cast<IntegerAttr>(streams[k]).getInt() : 0;
        auto dev = cast<FlatSymbolRefAttr>(coll.getDevices()[k]);
        lanes[{deviceIndex.lookup(dev.getValue()), stream}].push_back(
            {start, item});
        earliest = std::min(earliest, start);
      }
      first.push_back(std::isfinite(earliest) ? earliest : 0);
    } else {
      continue;
    }
    items.push_back(&op);
  }
  std::vector<std::vector<size_t>> next(items.size());
  std::vector<size_t> waiting(items.size(), 0);
  for (auto &[lane, list] : lanes) {
    std::sort(list.begin(), list.end()); // by start, then program order
    for (size_t k = 1; k < list.size(); ++k) {
      next[list[k - 1].second].push_back(list[k].second);
      ++waiting[list[k].second];
    }
  }
  using Ready = std::pair<double, size_t>; // earliest start, trace order
  std::priority_queue<Ready, std::vector<Ready>, std::greater<Ready>> ready;
  for (size_t i = 0; i < items.size(); ++i)
    if (waiting[i] == 0)
      ready.push({first[i], i});
  std::vector<size_t> order;
  while (!ready.empty()) {
    size_t i = ready.top().second;
    ready.pop();
    order.push_back(i);
    for (size_t j : next[i])
      if (--waiting[j] == 0)
        ready.push({first[j], j});
  }
  if (order.size() != items.size()) {
    std::string stuck;
    for (size_t i = 0; i < items.size() && stuck.size() < 200; ++i)
      if (waiting[i] > 0 && isa<sched::CollectiveOp>(items[i]))
        stuck += (stuck.empty() ? "@" : ", @") +
                 SymbolTable::getSymbolName(items[i]).getValue().str();
    return error(ranks.empty() ? "" : ranks[0].file,
                 "the ranks ran collectives of one stream in different "
                 "orders (" +
                     stuck + "): no program order fits every rank");
  }
  for (size_t i : order)
    items[i]->moveBefore(&body, body.end());
  return true;
}

OwningOpRef<ModuleOp> Importer::build(MLIRContext *ctx,
                                      llvm::raw_ostream &summary,
                                      TimingScope &timing) {
  TimingScope buildTiming = timing.nest("Build schedule IR");
  std::sort(
      ranks.begin(), ranks.end(),
      [](const KinetoRank &a, const KinetoRank &b) { return a.rank < b.rank; });
  // Traces of the CPU only (torch.profiler without ProfilerActivity.CUDA,
  // or on a machine without a GPU): nothing to schedule, said before what
  // their devices would need.
  if (llvm::all_of(ranks,
                   [](const KinetoRank &r) { return r.events.empty(); })) {
    error(ranks.empty() ? "" : ranks[0].file,
          std::string("no GPU events (kernels, memcpy, memset) in ") +
              (ranks.size() == 1 ? "the trace" : "any of the traces") +
              ": nothing to schedule (was the profiler recording CUDA? "
              "torch.profiler needs ProfilerActivity.CUDA, on a GPU)");
    return nullptr;
  }
  // Ranks whose times count from baseTimeNanoseconds and ranks whose do
  // not cannot be lined up (a trace written by an older PyTorch, or
  // post-processed, beside newer ones): refused rather than offset by the
  // base (decades).
  for (const KinetoRank &r : ranks)
    if (r.hasBaseTime != ranks.front().hasBaseTime) {
      const KinetoRank &with = r.hasBaseTime ? r : ranks.front();
      const KinetoRank &without = r.hasBaseTime ? ranks.front() : r;
      error(without.file,
            "gives no 'baseTimeNanoseconds', which " + with.file +
                " does (its times count from it): the ranks' clocks cannot "
                "be lined up; give traces of one PyTorch version");
      return nullptr;
    }
  std::vector<double> staticPower;
  if (!staticPowers(staticPower))
    return nullptr;
  // A job's traces name its world size: fewer files than that leave ranks
  // out of every collective (the collectives then span the ranks given).
  for (const KinetoRank &r : ranks)
    if (r.worldSize > int64_t(ranks.size())) {
      llvm::WithColor::warning(llvm::errs(), r.file)
          << "the job had " << r.worldSize
          << " ranks (distributedInfo.world_size) but " << ranks.size()
          << (ranks.size() == 1 ? " trace was" : " traces were")
          << " given: the schedule holds only those ranks, and its "
             "collectives span only them\n";
      break;
    }
  // A trace without distributedInfo.rank (a single-process profile, or one
  // written by another tool) is numbered by its position among the files:
  // with several, that decides which device's tasks are which rank's.
  if (ranks.size() > 1)
    for (const KinetoRank &r : ranks)
      if (!r.rankGiven)
        llvm::WithColor::warning(llvm::errs(), r.file)
            << "no distributedInfo.rank: taken as rank " << r.rank
            << ", its position among the " << ranks.size() << " traces given\n";
  double origin = commonOrigin();
  if (!streamsSerial(origin))
    return nullptr;
  Collectives colls;
  if (!matchCollectives(colls))
    return nullptr;

  OpBuilder b(ctx);
  Location fileLoc =
      FileLineColLoc::get(ctx, ranks.empty() ? "" : ranks[0].file, 1, 1);
  OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc);
  b.setInsertionPointToEnd(module->getBody());
  auto sched = sched::ScheduleOp::create(b, fileLoc, b.getStringAttr("trace"));
  sched.getBody().emplaceBlock();
  b.setInsertionPointToEnd(&sched.getBody().front());
  SmallVector<FlatSymbolRefAttr> devices;
  for (size_t ri = 0; ri < ranks.size(); ++ri) {
    const KinetoRank &r = ranks[ri];
    std::string name = "rank" + std::to_string(r.rank);
    auto dev = sched::DeviceOp::create(
        b, FileLineColLoc::get(ctx, r.file, 1, 1), b.getStringAttr(name),
        b.getStringAttr(r.deviceKind.empty() ? "unknown" : r.deviceKind),
        b.getF64FloatAttr(staticPower[ri]), OpPointAttr());
    // The job's regions that ran no GPU work (no task): their begins, for
    // the plan's lines (--export-plan, plan-clocks --by-key).
    if (!r.regionsWithoutTasks.empty()) {
      SmallVector<NamedAttribute> idle;
      for (const auto &[region, begins] : r.regionsWithoutTasks)
        idle.push_back(b.getNamedAttr(region, b.getI64IntegerAttr(begins)));
      dev->setAttr("regions_without_tasks", b.getDictionaryAttr(idle));
    }
    devices.push_back(FlatSymbolRefAttr::get(dev.getSymNameAttr()));
  }
  if (!opts.dbKeys.empty())
    for (const KinetoRank &r : ranks)
      for (const GpuEvent &e : r.events)
        anyNamed |= !e.nccl && (opts.regions.empty() || e.occurrence >= 0) &&
                    opts.dbKeys.count(e.name.str()) > 0;
  // A DB that names no event prices nothing: said, not a plan that keeps
  // every clock with no word why.
  if (!opts.dbKeys.empty() && !anyNamed)
    llvm::WithColor::warning(llvm::errs())
        << "--db-keys " << opts.dbKeysFile
        << ": no GPU event of the trace has a name the DB holds ("
        << opts.dbKeys.size() << " key(s), e.g. '" << *opts.dbKeys.begin()
        << "'): its kernels were characterized under other names, or it "
           "is another job's; no event is priced from it\n";
  if (!opts.regions.empty()) {
    // A pattern that groups nothing leaves every kernel a task of its own:
    // said, with the likely cause.
    size_t ranges = 0, grouped = 0, launches = 0, ambiguous = 0;
    for (const KinetoRank &r : ranks) {
      ranges += r.rangesRead;
      grouped += r.grouped;
      launches += r.launchesRead;
      ambiguous += r.ambiguous;
    }
    // (Our own exports hold their regions as slices, and no ranges.)
    bool own =
        llvm::any_of(ranks, [](const KinetoRank &r) { return r.ownExport; });
    if (!ranges && !own)
      llvm::WithColor::warning(llvm::errs())
          << "--regions '" << opts.regions
          << "' matches no CPU range (user_annotation, cpu_op or Operator "
             "event) of the trace"
          << (opts.profilerStep ? " begun inside profiler step " +
                                      std::to_string(*opts.profilerStep)
                                : std::string())
          << ": no region task (are the regions recorded, e.g. with "
             "torch.profiler.record_function?)\n";
    else if (!grouped && !own)
      llvm::WithColor::warning(llvm::errs())
          << "--regions '" << opts.regions << "' matches " << ranges
          << " CPU range(s), but no GPU event was launched inside one"
          << (!launches ? std::string(" (the trace has no CUDA runtime "
                                      "call with a correlation id: record "
                                      "the CPU activity too)")
              : ambiguous
                  ? " (" + std::to_string(ambiguous) +
                        " were launched by a thread of no matching range "
                        "while ranges of several others were open: no one "
                        "region's)"
                  : std::string())
          << "\n";
    for (const KinetoRank &r : ranks) {
      // A region's name is a line of the job's clock plan (plan-clocks
      // --by-key: "name[k] sm_mhz", '#' a comment): one with whitespace,
      // '#' or a control character cannot be, whatever is planned here.
      std::set<std::string> unwritable;
      auto check = [&](StringRef name) {
        if (!rt::clockPlanLineName(name.str()))
          unwritable.insert(name.str());
      };
      for (const GpuEvent &e : r.events)
        if (e.occurrence >= 0)
          check(e.name);
      for (const auto &region : r.regionsWithoutTasks)
        check(region.first);
      if (!unwritable.empty()) {
        std::string shown;
        llvm::raw_string_ostream os(shown);
        os.write_escaped(*unwritable.begin());
        llvm::WithColor::warning(llvm::errs(), r.file)
            << unwritable.size()
            << " region name(s) hold whitespace, '#' or a control character "
               "(e.g. \""
            << shown
            << "\"): plan-clocks --by-key cannot write them as lines of the "
               "job's clock plan; rename them in the job (record_function, "
               "energy_rt.region) to plan them\n";
      }
      if (r.enclosingRegions)
        llvm::WithColor::warning(llvm::errs(), r.file)
            << r.enclosingRegions
            << " region(s) held another matching range open at some of "
               "their launches (nested or overlapping ranges; e.g. '"
            << r.enclosing
            << "'): each holds only the kernels launched outside the later "
               "ones, which are regions of their own; match one level of "
               "ranges with --regions\n";
      std::set<int64_t> steps = profilerSteps(r);
      if (r.step < 0 && steps.size() > 1)
        llvm::WithColor::warning(llvm::errs(), r.file)
            << "the trace holds " << steps.size()
            << " profiler steps (ProfilerStep#" << *steps.begin()
            << " to ProfilerStep#" << *steps.rbegin()
            << "): its regions' begins are numbered over the whole trace, "
               "where the job counts them from each er_step "
               "(energy_rt.step()); keep one with --profiler-step N\n";
    }
  }
  for (size_t ri = 0; ri < ranks.size(); ++ri)
    if (!emitRank(b, ranks[ri], devices[ri], origin, summary))
      return nullptr;
  if (!emitCollectives(b, colls, devices, origin))
    return nullptr;
  if (!orderByStarts(sched, devices))
    return nullptr;
  // The models the figures rest on: this import's, and those our own
  // exports carried from theirs (energy_model).
  std::vector<std::string> models;
  for (const KinetoRank &r : ranks)
    if (!r.model.empty() && !llvm::is_contained(models, r.model))
      models.push_back(r.model);
  if (modelUsed) {
    std::string own = "assumed dynamic power " +
                      formatQuantity(*opts.dynamicPower, Dimension::Power, 6) +
                      " for every GPU event without its own d_J" +
                      (opts.dbKeys.empty() ? "" : " or a DB key");
    if (!llvm::is_contained(models, own))
      models.push_back(own);
  }
  if (!models.empty())
    sched->setAttr(EnergyDialect::ModelAttrHelper::getNameStr(),
                   b.getStringAttr(llvm::join(models, "; ")));
  buildTiming.stop();
  TimingScope verifyTiming = timing.nest("Verify");
  if (failed(verify(*module)))
    return nullptr;
  return module;
}

} // namespace

static OwningOpRef<ModuleOp> importKinetoFiles(MLIRContext *ctx,
                                               const KinetoOptions &opts,
                                               llvm::raw_ostream &summary,
                                               TimingScope &timing);

OwningOpRef<ModuleOp> energy::importKineto(MLIRContext *ctx,
                                           const KinetoOptions &opts,
                                           llvm::raw_ostream &summary,
                                           TimingScope &timing) {
  if (opts.files.empty()) {
    llvm::WithColor::error() << "--import-kineto needs at least one trace\n";
    return nullptr;
  }
  if (std::string why;
      !opts.regions.empty() && !llvm::Regex(opts.regions).isValid(why)) {
    llvm::WithColor::error() << "--regions '" << opts.regions
                             << "': not a pattern (" << why << ")\n";
    return nullptr;
  }
  // POSIX extended patterns have no \d, \w, \s or \b: each would match
  // its letter, and the pattern nothing it was meant to.
  for (size_t i = 0; i + 1 < opts.regions.size(); ++i) {
    if (opts.regions[i] != '\\')
      continue;
    char c = opts.regions[i + 1];
    if (StringRef("dDwWsSbB").contains(c)) {
      llvm::WithColor::error()
          << "--regions '" << opts.regions << "': \\" << c
          << " is no class of POSIX extended patterns (it matches the "
             "letter '"
          << c
          << "'): write [0-9] for \\d, [[:alnum:]_] for \\w, [[:space:]] "
             "for \\s\n";
      return nullptr;
    }
    ++i; // an escaped character
  }
  // A folder (what torch.profiler's tensorboard_trace_handler writes, one
  // trace per rank) stands for its traces, *.json and *.json.gz, by name.
  KinetoOptions expanded = opts;
  expanded.files.clear();
  for (const std::string &path : opts.files) {
    if (path == "-" || !llvm::sys::fs::is_directory(path)) {
      expanded.files.push_back(path);
      continue;
    }
    std::vector<std::string> traces;
    std::error_code ec;
    for (llvm::sys::fs::directory_iterator it(path, ec), end; it != end && !ec;
         it.increment(ec)) {
      StringRef name = it->path();
      if ((!name.ends_with(".json") && !name.ends_with(".json.gz")) ||
          llvm::sys::fs::is_directory(it->path()))
        continue;
      // A folder's traces are files: a pipe would block the import, a
      // device never end.
      if (!llvm::sys::fs::is_regular_file(it->path())) {
        llvm::WithColor::error()
            << it->path()
            << ": not a regular file (a folder's traces are read as files; "
               "a pipe, a device or a dangling link there is not)\n";
        return nullptr;
      }
      traces.push_back(it->path());
    }
    if (ec) {
      llvm::WithColor::error() << path << ": " << ec.message() << "\n";
      return nullptr;
    }
    if (traces.empty()) {
      llvm::WithColor::error()
          << path << ": a folder without traces (*.json, *.json.gz)\n";
      return nullptr;
    }
    std::sort(traces.begin(), traces.end());
    expanded.files.insert(expanded.files.end(), traces.begin(), traces.end());
  }
  // One file given twice (by another path, or in a folder given too) would
  // be two ranks of one trace where it does not say its rank, else a
  // duplicate-rank error that hides why.
  std::map<llvm::sys::fs::UniqueID, std::string> seen;
  for (const std::string &path : expanded.files) {
    llvm::sys::fs::UniqueID id;
    if (path == "-" || llvm::sys::fs::getUniqueID(path, id))
      continue; // standard input, or unreadable: said when it is read
    auto [it, fresh] = seen.try_emplace(id, path);
    if (!fresh) {
      llvm::WithColor::error() << path << ": the same trace as " << it->second
                               << " (given twice): each rank's trace once\n";
      return nullptr;
    }
  }
  return importKinetoFiles(ctx, expanded, summary, timing);
}

static OwningOpRef<ModuleOp> importKinetoFiles(MLIRContext *ctx,
                                               const KinetoOptions &opts,
                                               llvm::raw_ostream &summary,
                                               TimingScope &timing) {
  Importer imp(opts);
  {
    TimingScope readTiming = timing.nest("Read and scan traces");
    progress::Line line("import");
    imp.progressLine = &line;
    for (size_t i = 0; i < opts.files.size(); ++i) {
      line.phase("reading trace " + std::to_string(i + 1) + " of " +
                     std::to_string(opts.files.size()),
                 opts.files[i]);
      if (!imp.load(i))
        return nullptr;
    }
    line.phase("building the schedule");
  }
  return imp.build(ctx, summary, timing);
}
