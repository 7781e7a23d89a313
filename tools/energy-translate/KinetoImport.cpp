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

#include "dialect/Energy/Energy.h"
#include "dialect/Sched/Sched.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/WithColor.h"

#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <map>

using namespace mlir;
using namespace energy;

std::optional<std::string> energy::readMaybeGzip(const std::string &path,
                                                 std::string &err) {
  auto buf = llvm::MemoryBuffer::getFileOrSTDIN(path);
  if (!buf) {
    err = "cannot read: " + buf.getError().message();
    return std::nullopt;
  }
  StringRef data = (*buf)->getBuffer();
  if (data.size() < 2 || uint8_t(data[0]) != 0x1f || uint8_t(data[1]) != 0x8b)
    return data.str();
  z_stream zs{};
  if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) {
    err = "cannot initialize zlib";
    return std::nullopt;
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
      err = std::string("corrupt gzip data: ") + (zs.msg ? zs.msg : "inflate failed");
      inflateEnd(&zs);
      return std::nullopt;
    }
    out.append(chunk, sizeof(chunk) - zs.avail_out);
  } while (ret != Z_STREAM_END && (zs.avail_in > 0 || zs.avail_out == 0));
  inflateEnd(&zs);
  if (ret != Z_STREAM_END) {
    err = "truncated gzip data";
    return std::nullopt;
  }
  return out;
}

namespace {

struct GpuEvent {
  enum Kind : uint8_t { Kernel, Memcpy, Memset } kind;
  bool nccl;
  int64_t stream;
  double ts, dur; // us
  StringRef name;
  size_t index; // in traceEvents
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
  std::vector<GpuEvent> events;
  std::vector<Flow> flows;
  size_t skippedCpu = 0, skippedOther = 0, launchFlows = 0;
  /// Keeps the event names alive; heap-allocated so moving the Rank does
  /// not move the (small-string-optimized) strings the names point into.
  std::unique_ptr<llvm::json::Value> doc;
};

class Importer {
public:
  explicit Importer(const KinetoOptions &opts) : opts(opts) {}
  bool load(size_t fileIndex);
  OwningOpRef<ModuleOp> build(MLIRContext *ctx, llvm::raw_ostream &summary);

  std::vector<Rank> ranks;

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

bool Importer::load(size_t fileIndex) {
  const std::string &file = opts.files[fileIndex];
  std::string err;
  std::optional<std::string> text = readMaybeGzip(file, err);
  if (!text)
    return error(file, err);
  Rank r;
  r.file = file;
  llvm::Expected<llvm::json::Value> doc = llvm::json::parse(*text);
  if (!doc)
    return error(file, "malformed JSON: " + llvm::toString(doc.takeError()));
  r.doc = std::make_unique<llvm::json::Value>(std::move(*doc));
  const llvm::json::Array *events = nullptr;
  r.rank = fileIndex;
  if (auto *obj = r.doc->getAsObject()) {
    events = obj->getArray("traceEvents");
    if (!events)
      return error(file, "no 'traceEvents' array: not a Chrome trace");
    if (auto *dist = obj->getObject("distributedInfo"))
      if (auto rk = dist->getInteger("rank"))
        r.rank = *rk;
    if (auto *props = obj->getArray("deviceProperties"))
      if (!props->empty())
        if (auto *p0 = (*props)[0].getAsObject())
          if (auto name = p0->getString("name"))
            r.deviceKind = name->str();
  } else if ((events = r.doc->getAsArray())) {
    // A bare array of events is also a Chrome trace.
  } else {
    return error(file, "the top level must be an object or an array");
  }
  for (size_t i = 0; i < events->size(); ++i) {
    std::string where = "event #" + std::to_string(i) + ": ";
    const llvm::json::Object *e = (*events)[i].getAsObject();
    if (!e)
      return error(file, where + "not an object");
    std::optional<StringRef> ph = e->getString("ph");
    if (!ph)
      return error(file, where + "missing 'ph' (phase)");
    if (!isKnownPhase(*ph))
      return error(file, where + "unknown phase '" + *ph + "'");
    StringRef cat = e->getString("cat").value_or("");
    std::string lcat = cat.lower();
    bool gpu = *ph == "X" && (lcat == "kernel" || lcat == "gpu_memcpy" ||
                              lcat == "gpu_memset");
    if (*ph == "s" || *ph == "f" || *ph == "t") {
      if (lcat == "ac2g") {
        ++r.launchFlows;
        continue;
      }
      std::optional<double> ts = e->getNumber("ts");
      auto tid = e->getInteger("tid");
      const llvm::json::Value *id = e->get("id");
      if (!ts || !tid || !id)
        return error(file, where + "flow event needs numeric 'ts', 'tid' and an 'id'");
      std::string key;
      llvm::raw_string_ostream os(key);
      os << cat << "/" << *id;
      r.flows.push_back({*ph == "s", *ts, *tid, key, i});
      continue;
    }
    if (!gpu) {
      if (*ph == "X" || *ph == "B" || *ph == "E" || *ph == "i" || *ph == "I")
        ++r.skippedCpu;
      else
        ++r.skippedOther;
      continue;
    }
    std::optional<double> ts = e->getNumber("ts"), dur = e->getNumber("dur");
    if (!ts)
      return error(file, where + "GPU event lacks a numeric 'ts'");
    if (!dur)
      return error(file, where + "GPU event lacks a numeric 'dur'");
    if (!(*dur >= 0) || !std::isfinite(*dur))
      return error(file, where + "negative duration " + formatNumber(*dur) + " us");
    const llvm::json::Object *args = e->getObject("args");
    std::optional<int64_t> stream = args ? args->getInteger("stream") : std::nullopt;
    if (!stream)
      return error(file, where + "GPU event lacks 'args.stream'");
    if (*stream < 0)
      return error(file, where + "negative stream id");
    StringRef name = e->getString("name").value_or("");
    GpuEvent g{lcat == "kernel"       ? GpuEvent::Kernel
               : lcat == "gpu_memcpy" ? GpuEvent::Memcpy
                                      : GpuEvent::Memset,
               lcat == "kernel" && name.starts_with("nccl"), *stream, *ts,
               *dur, name, i};
    r.events.push_back(g);
  }
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
                                      llvm::raw_ostream &summary) {
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
                        "': no known static power; pass --static-power (W)");
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
      const auto &list = it->second;
      const GpuEvent *bound = nullptr;
      if (f.start) { // the slice that contains (or ends at) the flow start
        for (const GpuEvent *e : list)
          if (e->ts <= f.ts && f.ts <= e->ts + e->dur)
            bound = e;
      } else { // the slice that starts at or after the flow end
        for (const GpuEvent *e : list)
          if (e->ts >= f.ts) {
            bound = e;
            break;
          }
      }
      auto &ends = flowEnds[f.key];
      (f.start ? ends.first : ends.second) = bound;
    }
    llvm::DenseMap<const GpuEvent *, SmallVector<const GpuEvent *>> flowDeps;
    for (auto &[key, ends] : flowEnds)
      if (ends.first && ends.second && ends.first != ends.second)
        flowDeps[ends.second].push_back(ends.first);

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
      Location loc = FileLineColLoc::get(ctx, r.file, 0, e.index);
      SignatureAttr sig;
      if (opts.dynamicPower)
        sig = SignatureAttr::get(ctx, duration(e.dur), *opts.dynamicPower * duration(e.dur),
                                 0, 0, std::nullopt, std::nullopt);
      sched::TaskOp::create(
          b, loc, name, devices[ri], b.getI64IntegerAttr(e.stream), after,
          ArrayAttr(), FloatAttr(),
          e.kind == GpuEvent::Kernel   ? kKernel
          : e.kind == GpuEvent::Memcpy ? kMemcpy
                                       : kMemset,
          b.getDictionaryAttr({b.getNamedAttr("name", b.getStringAttr(e.name))}),
          b.getF64FloatAttr(seconds(e.ts)),
          sig ? FloatAttr() : b.getF64FloatAttr(duration(e.dur)), sig,
          StringAttr(), ArrayAttr());
    }
    summary << llvm::formatv(
        "rank {0}: {1} kernels ({2} collective), {3} memcpy, {4} memset; "
        "makespan {5} us; skipped {6} CPU-side events, {7} launch flows, {8} "
        "other\n",
        r.rank, kernels, nccl, memcpys, memsets,
        formatNumber(r.events.empty() ? 0.0 : last - first),
        r.skippedCpu, r.launchFlows, r.skippedOther);
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
    sched->setAttr("energy.model",
                   b.getStringAttr(llvm::formatv("assumed dynamic power {0} W "
                                                 "for every GPU event",
                                                 *opts.dynamicPower)
                                       .str()));
  if (failed(verify(*module)))
    return nullptr;
  return module;
}

} // namespace

OwningOpRef<ModuleOp> energy::importKineto(MLIRContext *ctx,
                                           const KinetoOptions &opts,
                                           llvm::raw_ostream &summary) {
  if (opts.files.empty()) {
    llvm::WithColor::error() << "--import-kineto needs at least one trace\n";
    return nullptr;
  }
  Importer imp(opts);
  for (size_t i = 0; i < opts.files.size(); ++i)
    if (!imp.load(i))
      return nullptr;
  return imp.build(ctx, summary);
}
