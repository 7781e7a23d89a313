//===- KinetoImport.cpp - PyTorch profiler (Kineto) traces ----------------===//
//
// One Chrome-trace JSON per rank. GPU kernels, memcpy and memset become
// sched.task with measured start and duration on (rank device, stream); NCCL
// kernels become sched.collective matched across ranks by (kernel name,
// occurrence); flow events other than CPU->GPU launches (ac2g) that link two
// GPU events become dependencies; CPU-side events are skipped and counted.
//
//===----------------------------------------------------------------------===//

#include "tools/energy-translate/Importers.h"

#include "runtime/Progress.h"
#include "tools/energy-translate/JsonScanner.h"

#include "dialect/Energy/Energy.h"
#include "dialect/Sched/Sched.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/WithColor.h"

#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <map>

using namespace mlir;
using namespace energy;

std::unique_ptr<llvm::MemoryBuffer>
energy::readMaybeGzip(const std::string &path, std::string &err) {
  auto buf = llvm::MemoryBuffer::getFileOrSTDIN(path);
  if (!buf) {
    err = "cannot read: " + buf.getError().message();
    return nullptr;
  }
  StringRef data = (*buf)->getBuffer();
  if (data.size() < 2 || uint8_t(data[0]) != 0x1f || uint8_t(data[1]) != 0x8b)
    return std::move(*buf);
  z_stream zs{};
  if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) {
    err = "cannot initialize zlib";
    return nullptr;
  }
  zs.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(data.data()));
  zs.avail_in = data.size();
  std::string out;
  char chunk[1 << 16];
  int ret;
  do {
    zs.next_out = reinterpret_cast<Bytef *>(chunk);
    zs.avail_out = sizeof(chunk);
    ret = inflate(&zs, Z_NO_FLUSH);
    if (ret != Z_OK && ret != Z_STREAM_END) {
      err = std::string("corrupt gzip data: ") +
            (zs.msg ? zs.msg : "inflate failed");
      inflateEnd(&zs);
      return nullptr;
    }
    out.append(chunk, sizeof(chunk) - zs.avail_out);
  } while (ret != Z_STREAM_END && (zs.avail_in > 0 || zs.avail_out == 0));
  inflateEnd(&zs);
  if (ret != Z_STREAM_END) {
    err = "truncated gzip data";
    return nullptr;
  }
  return llvm::MemoryBuffer::getMemBufferCopy(out, path);
}

namespace {

struct GpuEvent {
  enum Kind : uint8_t { Kernel, Memcpy, Memset } kind;
  bool nccl;
  int64_t stream;
  double ts, dur; // us
  StringRef name; // owned by Rank::names
  size_t index;   // in traceEvents
};

struct Flow {
  bool start; // 's' vs 'f'
  double ts;
  int64_t tid;
  std::string key; // cat + id
  size_t index;
};

struct Rank {
  std::string file;
  int64_t rank;
  std::string deviceKind;
  bool badRank = false; ///< distributedInfo.rank was not a usable integer
  std::vector<GpuEvent> events;
  int64_t gpuPid = -1; ///< the process of the GPU events (one per file)
  std::vector<Flow> flows;
  size_t skippedCpu = 0, skippedOther = 0, launchFlows = 0;
  /// Owns the GPU event names.
  std::vector<std::unique_ptr<std::string>> names;
};

class Importer {
public:
  explicit Importer(const KinetoOptions &opts) : opts(opts) {}
  bool load(size_t fileIndex);
  OwningOpRef<ModuleOp> build(MLIRContext *ctx, llvm::raw_ostream &summary,
                              TimingScope &timing);

  std::vector<Rank> ranks;
  /// Progress within a trace file (null: none).
  progress::Line *progressLine = nullptr;

private:
  bool error(const std::string &file, const Twine &msg) {
    llvm::WithColor::error(llvm::errs(), file) << msg << "\n";
    return false;
  }
  const KinetoOptions &opts;
};


bool isKnownPhase(StringRef ph) {
  static const char *phases[] = {"B", "E", "X", "i", "I", "C", "b", "n", "e",
                                 "s", "t", "f", "P", "N", "O", "D", "M", "V",
                                 "v", "R", "c", "(", ")"};
  for (const char *p : phases)
    if (ph == p)
      return true;
  return false;
}

/// The fields of one trace event the importer uses.
struct RawEvent {
  std::string ph, cat, name, id, bp;
  bool hasTs = false, hasDur = false, hasStream = false, hasId = false;
  double ts = 0, dur = 0;
  int64_t tid = -1, stream = -1, pid = -1;

  void clear() { *this = RawEvent(); }
};

/// A stream, thread or rank number as JSON gives it (a double): exactly a
/// non-negative integer below 2^31, or not one (1e308 used to overflow the
/// integer cast).
bool asIndex(double v, int64_t &out) {
  if (!(v >= 0) || v >= 2147483648.0 || v != std::floor(v))
    return false;
  out = int64_t(v);
  return true;
}

/// A tid may be a number or a string such as "stream 7" (-1: not a usable
/// number).
bool readTid(JsonScanner &js, int64_t &tid) {
  if (js.peek() == JsonScanner::Kind::Number) {
    double v;
    if (!js.number(v))
      return false;
    if (!asIndex(v, tid))
      tid = -1;
    return true;
  }
  if (js.peek() == JsonScanner::Kind::String) {
    StringRef s;
    if (!js.string(s))
      return false;
    s = s.trim();
    size_t i = s.find_last_not_of("0123456789");
    int64_t v;
    if (!s.substr(i == StringRef::npos ? 0 : i + 1).getAsInteger(10, v))
      tid = v;
    return true;
  }
  return js.skip();
}

bool readEvent(JsonScanner &js, RawEvent &e) {
  e.clear();
  auto str = [&](std::string &out) {
    if (js.peek() != JsonScanner::Kind::String)
      return js.skip();
    StringRef s;
    if (!js.string(s))
      return false;
    out = s.str();
    return true;
  };
  auto num = [&](double &out, bool &has) {
    if (js.peek() != JsonScanner::Kind::Number)
      return js.skip();
    has = true;
    return js.number(out);
  };
  return js.object([&](StringRef key) -> bool {
    if (key == "ph")
      return str(e.ph);
    if (key == "cat")
      return str(e.cat);
    if (key == "name")
      return str(e.name);
    if (key == "bp")
      return str(e.bp);
    if (key == "ts")
      return num(e.ts, e.hasTs);
    if (key == "dur")
      return num(e.dur, e.hasDur);
    if (key == "tid")
      return readTid(js, e.tid);
    if (key == "pid")
      return readTid(js, e.pid);
    if (key == "id") {
      e.hasId = true;
      if (js.peek() == JsonScanner::Kind::String)
        return str(e.id);
      double v;
      if (js.peek() == JsonScanner::Kind::Number && js.number(v)) {
        e.id = formatNumber(v);
        return true;
      }
      return js.skip();
    }
    if (key == "args") {
      if (js.peek() != JsonScanner::Kind::Object)
        return js.skip();
      return js.object([&](StringRef arg) -> bool {
        if (arg == "stream" && js.peek() == JsonScanner::Kind::Number) {
          double v;
          if (!js.number(v))
            return false;
          e.hasStream = asIndex(v, e.stream);
          return true;
        }
        return js.skip();
      });
    }
    return js.skip();
  });
}

bool Importer::load(size_t fileIndex) {
  const std::string &file = opts.files[fileIndex];
  std::string err;
  std::unique_ptr<llvm::MemoryBuffer> text = readMaybeGzip(file, err);
  if (!text)
    return error(file, err);
  Rank r;
  r.file = file;
  r.rank = fileIndex;
  JsonScanner js(text->getBuffer());
  RawEvent ev;
  std::string problem; // a semantic error, reported with the event index
  bool sawEvents = false;
  auto onEvent = [&](size_t i) -> bool {
    if (progressLine && i % 65536 == 0)
      progressLine->update(js.consumed(), std::to_string(i) + " events");
    if (js.peek() != JsonScanner::Kind::Object) {
      problem = "event #" + std::to_string(i) + ": not an object";
      return false;
    }
    if (!readEvent(js, ev))
      return false;
    std::string where = "event #" + std::to_string(i) + ": ";
    if (ev.ph.empty()) {
      problem = where + "missing 'ph' (phase)";
      return false;
    }
    if (!isKnownPhase(ev.ph)) {
      problem = where + "unknown phase '" + ev.ph + "'";
      return false;
    }
    std::string lcat = StringRef(ev.cat).lower();
    if (ev.ph == "s" || ev.ph == "f" || ev.ph == "t") {
      if (lcat == "ac2g") {
        ++r.launchFlows;
        return true;
      }
      if (!ev.hasTs || !ev.hasId) {
        problem = where + "flow event needs a numeric 'ts' and an 'id'";
        return false;
      }
      r.flows.push_back({ev.ph == "s", ev.ts, ev.tid, ev.cat + "/" + ev.id, i});
      return true;
    }
    bool gpu = ev.ph == "X" && (lcat == "kernel" || lcat == "gpu_memcpy" ||
                                lcat == "gpu_memset");
    if (!gpu) {
      if (ev.ph == "X" || ev.ph == "B" || ev.ph == "E" || ev.ph == "i" ||
          ev.ph == "I")
        ++r.skippedCpu;
      else
        ++r.skippedOther;
      return true;
    }
    if (!ev.hasTs) {
      problem = where + "GPU event lacks a numeric 'ts'";
      return false;
    }
    if (!ev.hasDur) {
      problem = where + "GPU event lacks a numeric 'dur'";
      return false;
    }
    if (!(ev.dur >= 0) || !std::isfinite(ev.dur)) {
      problem = where + "negative duration " + formatNumber(ev.dur) + " us";
      return false;
    }
    if (!ev.hasStream) {
      problem = where + "GPU event lacks 'args.stream' (a non-negative "
                        "integer below 2^31)";
      return false;
    }
    if (ev.stream < 0) {
      problem = where + "negative stream id";
      return false;
    }
    // One rank, one GPU process: a trace with GPU events of two processes
    // (several devices in one file) would otherwise put both devices'
    // events on one device's streams.
    if (ev.pid >= 0) {
      if (r.gpuPid < 0)
        r.gpuPid = ev.pid;
      else if (ev.pid != r.gpuPid) {
        problem = where + "GPU events of a second process (pid " +
                  std::to_string(ev.pid) + " after pid " +
                  std::to_string(r.gpuPid) +
                  "): --import-kineto reads one rank's GPU per file, as "
                  "PyTorch's profiler writes them; split a multi-device "
                  "trace per process first";
        return false;
      }
    }
    r.names.push_back(std::make_unique<std::string>(std::move(ev.name)));
    StringRef name = *r.names.back();
    r.events.push_back({lcat == "kernel"       ? GpuEvent::Kernel
                        : lcat == "gpu_memcpy" ? GpuEvent::Memcpy
                                               : GpuEvent::Memset,
                        lcat == "kernel" && name.starts_with("nccl"),
                        ev.stream, ev.ts, ev.dur, name, i});
    return true;
  };
  bool ok;
  if (js.peek() == JsonScanner::Kind::Array) {
    sawEvents = true;
    ok = js.array(onEvent);
  } else if (js.peek() == JsonScanner::Kind::Object) {
    ok = js.object([&](StringRef key) -> bool {
      if (key == "traceEvents") {
        sawEvents = true;
        if (js.peek() != JsonScanner::Kind::Array)
          return js.fail("'traceEvents' must be an array");
        return js.array(onEvent);
      }
      if (key == "distributedInfo" &&
          js.peek() == JsonScanner::Kind::Object)
        return js.object([&](StringRef k) -> bool {
          if (k == "rank" && js.peek() == JsonScanner::Kind::Number) {
            double v;
            if (!js.number(v))
              return false;
            if (!asIndex(v, r.rank))
              r.badRank = true;
            return true;
          }
          return js.skip();
        });
      if (key == "deviceProperties" && js.peek() == JsonScanner::Kind::Array)
        return js.array([&](size_t i) -> bool {
          if (i != 0 || js.peek() != JsonScanner::Kind::Object)
            return js.skip();
          return js.object([&](StringRef k) -> bool {
            if (k == "name" && js.peek() == JsonScanner::Kind::String) {
              StringRef s;
              if (!js.string(s))
                return false;
              r.deviceKind = s.str();
              return true;
            }
            return js.skip();
          });
        });
      return js.skip();
    });
  } else {
    return error(file, "the top level must be an object or an array (" +
                           (js.skip(), js.message()) + ")");
  }
  if (!problem.empty())
    return error(file, problem);
  if (!ok || !js.finish())
    return error(file, "malformed JSON at " + js.message());
  if (!sawEvents)
    return error(file, "no 'traceEvents' array: not a Chrome trace");
  if (r.badRank)
    return error(file, "distributedInfo.rank must be a non-negative integer "
                       "below 2^31");
  for (const Rank &other : ranks)
    if (other.rank == r.rank)
      return error(file, "rank " + Twine(r.rank) + " also comes from " +
                             other.file);
  ranks.push_back(std::move(r));
  return true;
}

/// Collective key: the kernel name without its parameter list.
StringRef collectiveKey(StringRef name) { return name.split('(').first; }

OwningOpRef<ModuleOp> Importer::build(MLIRContext *ctx,
                                      llvm::raw_ostream &summary,
                                      TimingScope &timing) {
  TimingScope buildTiming = timing.nest("Build schedule IR");
  std::sort(ranks.begin(), ranks.end(),
            [](const Rank &a, const Rank &b) { return a.rank < b.rank; });
  // Static power per rank device.
  std::vector<double> staticPower;
  for (const Rank &r : ranks) {
    std::optional<double> s =
        opts.staticPower ? opts.staticPower : knownStaticPower(r.deviceKind);
    if (!s) {
      error(r.file, "unknown device '" +
                        (r.deviceKind.empty() ? std::string("<unnamed>")
                                              : r.deviceKind) +
                        "': no known static power (known: A40, A100-SXM, H200); pass "
                        "--static-power (W)");
      return nullptr;
    }
    staticPower.push_back(*s);
  }
  // Common clock: the traces share wall-clock timestamps (us); the origin is
  // the earliest GPU event of any rank.
  double origin = INFINITY;
  for (Rank &r : ranks) {
    std::sort(r.events.begin(), r.events.end(),
              [](const GpuEvent &a, const GpuEvent &b) {
                return a.ts < b.ts || (a.ts == b.ts && a.index < b.index);
              });
    for (const GpuEvent &e : r.events)
      origin = std::min(origin, e.ts);
  }
  if (!std::isfinite(origin))
    origin = 0;

  // Match collectives across ranks: the k-th kernel of one NCCL name on each
  // rank is one collective. Every rank must issue the same collectives.
  llvm::MapVector<StringRef, std::vector<std::vector<const GpuEvent *>>> colls;
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
      if (perRank[ri].size() != perRank[0].size()) {
        error(ranks[ri].file,
              llvm::formatv("ranks disagree on collectives: rank {0} issues "
                            "{1} x {2} but rank {3} issues {4}",
                            ranks[ri].rank, perRank[ri].size(), key,
                            ranks[0].rank, perRank[0].size())
                  .str());
        return nullptr;
      }
  }

  OpBuilder b(ctx);
  Location fileLoc = FileLineColLoc::get(ctx, ranks.empty() ? "" : ranks[0].file, 1, 1);
  OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc);
  b.setInsertionPointToEnd(module->getBody());
  auto sched = sched::ScheduleOp::create(b, fileLoc, b.getStringAttr("trace"));
  sched.getBody().emplaceBlock();
  b.setInsertionPointToEnd(&sched.getBody().front());
  SmallVector<FlatSymbolRefAttr> devices;
  for (size_t ri = 0; ri < ranks.size(); ++ri) {
    const Rank &r = ranks[ri];
    std::string name = "rank" + std::to_string(r.rank);
    auto dev = sched::DeviceOp::create(
        b, FileLineColLoc::get(ctx, r.file, 1, 1), b.getStringAttr(name),
        b.getStringAttr(r.deviceKind.empty() ? "unknown" : r.deviceKind),
        b.getF64FloatAttr(staticPower[ri]), OpPointAttr());
    devices.push_back(FlatSymbolRefAttr::get(dev.getSymNameAttr()));
  }
  // Microseconds to seconds as a correctly rounded decimal shift, so that
  // 2063 us is exactly the double nearest 2.063e-3 (prints as "2.063 ms").
  auto seconds = [&](double us) { return applyScale(us - origin, -6); };
  auto duration = [&](double us) { return applyScale(us, -6); };
  StringAttr kKernel = b.getStringAttr("kernel"),
             kMemcpy = b.getStringAttr("memcpy"),
             kMemset = b.getStringAttr("memset");
  // Per rank: task names of GPU events by trace index, for flow deps.
  for (size_t ri = 0; ri < ranks.size(); ++ri) {
    Rank &r = ranks[ri];
    llvm::DenseMap<size_t, StringAttr> nameOf;
    // Flow binding: per stream, events sorted by start.
    std::map<int64_t, std::vector<const GpuEvent *>> byStream;
    for (const GpuEvent &e : r.events)
      byStream[e.stream].push_back(&e);
    std::map<std::string, std::pair<const GpuEvent *, const GpuEvent *>> flowEnds;
    for (const Flow &f : r.flows) {
      auto it = byStream.find(f.tid);
      if (it == byStream.end())
        continue; // a flow between CPU threads
      const auto &list = it->second; // sorted by start
      auto firstAfter = std::lower_bound(
          list.begin(), list.end(), f.ts,
          [](const GpuEvent *e, double ts) { return e->ts < ts; });
      const GpuEvent *bound = nullptr;
      if (f.start) {
        // The slice that contains (or ends at) the flow start.
        auto up = std::upper_bound(
            list.begin(), list.end(), f.ts,
            [](double ts, const GpuEvent *e) { return ts < e->ts; });
        if (up != list.begin() && (*(up - 1))->ts + (*(up - 1))->dur >= f.ts)
          bound = *(up - 1);
      } else if (firstAfter != list.end()) {
        // The slice that starts at or after the flow end.
        bound = *firstAfter;
      }
      auto &ends = flowEnds[f.key];
      (f.start ? ends.first : ends.second) = bound;
    }
    llvm::DenseMap<const GpuEvent *, SmallVector<const GpuEvent *>> flowDeps;
    for (auto &[key, ends] : flowEnds)
      if (ends.first && ends.second && ends.first != ends.second)
        flowDeps[ends.second].push_back(ends.first);

    Location rankLoc = FileLineColLoc::get(ctx, r.file, 0, 0);
    size_t kernels = 0, memcpys = 0, memsets = 0, nccl = 0;
    double first = INFINITY, last = -INFINITY;
    for (const GpuEvent &e : r.events) {
      first = std::min(first, e.ts);
      last = std::max(last, e.ts + e.dur);
      (e.kind == GpuEvent::Kernel   ? kernels
       : e.kind == GpuEvent::Memcpy ? memcpys
                                    : memsets)++;
      if (e.nccl) {
        ++nccl;
        continue; // emitted as collectives below
      }
      StringAttr name =
          b.getStringAttr("r" + std::to_string(r.rank) + "_e" + std::to_string(e.index));
      nameOf[e.index] = name;
      ArrayAttr after;
      if (auto it = flowDeps.find(&e); it != flowDeps.end()) {
        SmallVector<Attribute> refs;
        for (const GpuEvent *p : it->second)
          if (auto n = nameOf.lookup(p->index))
            refs.push_back(FlatSymbolRefAttr::get(n));
        if (!refs.empty())
          after = b.getArrayAttr(refs);
      }
      // One location per rank file: op names carry the event index
      // (r<rank>_e<index>), and a million distinct locations cost seconds.
      Location loc = rankLoc;
      SignatureAttr sig;
      if (opts.dynamicPower)
        sig = SignatureAttr::get(ctx, duration(e.dur), *opts.dynamicPower * duration(e.dur),
                                 0, 0, std::nullopt, std::nullopt);
      sched::TaskOp::create(
          b, loc, name, devices[ri], b.getI64IntegerAttr(e.stream), after,
          FloatAttr(), ArrayAttr(), FloatAttr(), FloatAttr(),
          e.kind == GpuEvent::Kernel   ? kKernel
          : e.kind == GpuEvent::Memcpy ? kMemcpy
                                       : kMemset,
          b.getDictionaryAttr({b.getNamedAttr("name", b.getStringAttr(e.name))}),
          seconds(e.ts),
          sig ? std::nullopt : std::optional<double>(duration(e.dur)), sig,
          StringAttr(), ArrayAttr());
    }
    summary << llvm::formatv(
        "rank {0}: {1} kernels ({2} collective), {3} memcpy, {4} memset; "
        "makespan {5} us; skipped {6} CPU-side events, {7} launch flows, {8} "
        "other\n",
        r.rank, kernels, nccl, memcpys, memsets,
        formatNumber(r.events.empty() ? 0.0 : last - first),
        r.skippedCpu, r.launchFlows, r.skippedOther);
    if (r.events.empty())
      llvm::WithColor::warning(llvm::errs(), r.file)
          << "no GPU events (kernels, memcpy, memset) in this trace: rank "
          << r.rank << " is empty (was the profiler recording CUDA?)\n";
  }
  // Collectives.
  size_t ci = 0;
  for (auto &[key, perRank] : colls) {
    for (size_t k = 0; k < perRank[0].size(); ++k) {
      SmallVector<Attribute> devs, starts, durs, energies, streams;
      for (size_t ri = 0; ri < ranks.size(); ++ri) {
        const GpuEvent *e = perRank[ri][k];
        devs.push_back(devices[ri]);
        starts.push_back(b.getF64FloatAttr(seconds(e->ts)));
        durs.push_back(b.getF64FloatAttr(duration(e->dur)));
        if (opts.dynamicPower)
          energies.push_back(
              b.getF64FloatAttr(*opts.dynamicPower * duration(e->dur)));
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
          IntegerAttr(), ArrayAttr(), ArrayAttr(), FloatAttr(),
          b.getStringAttr(kind),
          b.getDictionaryAttr(
              {b.getNamedAttr("instance", b.getI64IntegerAttr(k)),
               b.getNamedAttr("name", b.getStringAttr(key))}),
          FloatAttr(), SignatureAttr(), b.getArrayAttr(starts),
          b.getArrayAttr(durs),
          opts.dynamicPower ? b.getArrayAttr(energies) : ArrayAttr(),
          b.getArrayAttr(streams));
    }
  }
  if (opts.dynamicPower)
    sched->setAttr(EnergyDialect::ModelAttrHelper::getNameStr(),
                   b.getStringAttr(llvm::formatv("assumed dynamic power {0} W "
                                                 "for every GPU event",
                                                 *opts.dynamicPower)
                                       .str()));
  buildTiming.stop();
  TimingScope verifyTiming = timing.nest("Verify");
  if (failed(verify(*module)))
    return nullptr;
  return module;
}

} // namespace

OwningOpRef<ModuleOp> energy::importKineto(MLIRContext *ctx,
                                           const KinetoOptions &opts,
                                           llvm::raw_ostream &summary,
                                           TimingScope &timing) {
  if (opts.files.empty()) {
    llvm::WithColor::error() << "--import-kineto needs at least one trace\n";
    return nullptr;
  }
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
