//===- KinetoTrace.cpp - Reading PyTorch profiler (Kineto) traces ---------===//

#include "translate/KinetoTrace.h"
#include "runtime/formats/Input.h"

#include "runtime/AtomicFile.h"

#include "dialect/Energy/Units.h"
#include "translate/JsonScanner.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/FormatVariadic.h"

#include <zlib.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

using namespace energy;
using llvm::StringRef;
using llvm::Twine;

bool energy::inflateGzip(StringRef data, std::string &out, std::string &err) {
  err.clear();
  if (data.size() < 2 || uint8_t(data[0]) != 0x1f || uint8_t(data[1]) != 0x8b)
    return false;
  // The text is held to one input's limit as it inflates: a small file of
  // zeros may inflate to terabytes.
  uint64_t limit = formats::inputLimitBytes(err);
  if (!limit)
    return false;
  z_stream zs{};
  if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) {
    err = "cannot initialize zlib";
    return false;
  }
  // zlib counts input in 32 bits: a file past 4 GiB is fed in pieces.
  const char *nextIn = data.data();
  size_t left = data.size();
  auto refill = [&] {
    if (zs.avail_in != 0 || left == 0)
      return;
    uInt n = uInt(std::min<size_t>(left, size_t(1) << 30));
    zs.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(nextIn));
    zs.avail_in = n;
    nextIn += n;
    left -= n;
  };
  refill();
  out.clear();
  char chunk[1 << 16];
  int ret;
  // A gzip file may hold several members, read one after another (RFC
  // 1952, 2.2; `gzip -c a >> f` makes them, and zcat reads them all).
  // Zero bytes after the last are padding; anything else is an error, not
  // left unread.
  for (;;) {
    do {
      refill();
      zs.next_out = reinterpret_cast<Bytef *>(chunk);
      zs.avail_out = sizeof(chunk);
      ret = inflate(&zs, Z_NO_FLUSH);
      // No input left before the stream's end: cut short, not corrupt (an
      // output a multiple of the chunk asks inflate once more for nothing).
      if (ret == Z_BUF_ERROR && zs.avail_in == 0 && left == 0) {
        inflateEnd(&zs);
        err = "truncated gzip data";
        return false;
      }
      if (ret != Z_OK && ret != Z_STREAM_END) {
        err = std::string("corrupt gzip data: ") +
              (zs.msg ? zs.msg : "inflate failed");
        inflateEnd(&zs);
        return false;
      }
      if (out.size() + (sizeof(chunk) - zs.avail_out) > limit) {
        inflateEnd(&zs);
        err = "more than " + formats::limitText(limit) + " once inflated" +
              formats::kLimitNote;
        return false;
      }
      out.append(chunk, sizeof(chunk) - zs.avail_out);
    } while (ret != Z_STREAM_END &&
             (zs.avail_in > 0 || left > 0 || zs.avail_out == 0));
    if (ret != Z_STREAM_END) {
      inflateEnd(&zs);
      err = "truncated gzip data";
      return false;
    }
    for (refill(); zs.avail_in > 0 && *zs.next_in == 0; refill())
      ++zs.next_in, --zs.avail_in;
    if (zs.avail_in == 0)
      break;
    // The next member's magic (its two bytes may straddle a piece).
    size_t at = data.size() - zs.avail_in - left;
    if (data.size() - at < 2 || uint8_t(data[at]) != 0x1f ||
        uint8_t(data[at + 1]) != 0x8b) {
      inflateEnd(&zs);
      err = "data after the gzip stream (at byte " + std::to_string(at) +
            ") that is not another gzip member";
      return false;
    }
    if (inflateReset(&zs) != Z_OK) {
      inflateEnd(&zs);
      err = "cannot read the next gzip member";
      return false;
    }
  }
  inflateEnd(&zs);
  return true;
}

std::unique_ptr<llvm::MemoryBuffer>
energy::readMaybeGzip(const std::string &path, std::string &err) {
  std::unique_ptr<llvm::MemoryBuffer> buf = formats::readInput(path, err);
  if (!buf)
    return nullptr;
  std::string out;
  bool inflated = inflateGzip(buf->getBuffer(), out, err);
  if (!inflated && !err.empty())
    return nullptr;
  // A tar archive (POSIX "ustar" magic at offset 257), as traces are often
  // shipped: one trace per file, so the archive is extracted first.
  StringRef text = inflated ? StringRef(out) : buf->getBuffer();
  if (text.size() > 262 && text.substr(257, 5) == "ustar") {
    err = "a tar archive, not a trace: extract it (tar xf) and pass its "
          "trace files";
    return nullptr;
  }
  if (inflated)
    return std::make_unique<formats::StreamBuffer>(std::move(out), path);
  return buf;
}

namespace {

bool isKnownPhase(StringRef ph) {
  // The Trace Event Format's phases, with the deprecated async ones (S, T,
  // p, F: older Chrome traces still carry them; counted, not used).
  static const char *phases[] = {"B", "E", "X", "i", "I", "C", "b", "n", "e",
                                 "s", "t", "f", "P", "N", "O", "D", "M", "V",
                                 "v", "R", "c", "(", ")", "S", "T", "p", "F"};
  for (const char *p : phases)
    if (ph == p)
      return true;
  return false;
}

/// The fields of one trace event the importer uses. `ts` is split into
/// whole microseconds and their fraction as written (see splitMicros).
struct RawEvent {
  std::string ph, cat, name, id, bp, taskKind, task, from, to;
  double dJ = NAN;
  size_t dJAt = 0;     ///< offset of args.d_J where present
  bool dJTyped = true; ///< false: args.d_J is there but not a number
  /// The task's spreads (our exports: args.sigma_T_s, args.sigma_d_J).
  double sigmaTS = 0, sigmaDJ = 0;
  size_t spreadAt = 0;  ///< offset of the first bad one
  bool spreadOk = true; ///< false: one is there but not a spread
  /// A dependency flow's args.dependency, args.lag_s and
  /// args.delay_sigma_s (our exports).
  std::string dependency;
  bool dependencyTyped = true; ///< false: there but not a string
  double lagS = 0, sigmaS = 0;
  size_t lagAt = 0, sigmaAt = 0;           ///< their offsets where present
  bool lagTyped = true, sigmaTyped = true; ///< false: there, not numbers
  bool hasTs = false, hasDur = false, hasStream = false, hasId = false;
  /// The id is id2's "local" one: the same value in another process is
  /// another flow.
  bool localId = false;
  bool tsInRange = false;
  int64_t tsWhole = 0;
  double tsFrac = 0, tsApprox = 0, dur = 0;
  int64_t tid = -1, stream = -1, pid = -1;
  /// args.correlation (-1: absent or not an integer id).
  int64_t correlation = -1;
  /// args.occurrence: our own export's region's begin (-1: absent; a
  /// non-integer or negative one is -2, refused).
  int64_t occurrence = -1;
  size_t occurrenceAt = 0;
  /// args.begins: how many begins that region has (-1: absent; -2: not a
  /// count, refused).
  int64_t begins = -1;
  size_t beginsAt = 0;

  void clear() { *this = RawEvent(); }
};

/// A timestamp's text as whole microseconds and a fraction in [0, 1), read
/// from the decimal digits themselves: today's epoch timestamps (~1.7e15
/// us) with PyTorch 2's nanosecond decimals need ~19 significant digits,
/// beyond a double's 15-17, so two events 1 ns apart would otherwise read as
/// one time. An exponent form is read as a double. False when |ts| > 1e17
/// us (`approx` is then the value, for the message).
bool splitMicros(StringRef text, int64_t &whole, double &frac, double &approx) {
  std::from_chars(text.begin(), text.end(), approx);
  if (!(std::fabs(approx) <= 1e17))
    return false;
  bool negative = text.consume_front("-");
  StringRef intPart = text.take_while(llvm::isDigit),
            rest = text.drop_front(intPart.size());
  uint64_t i = 0;
  bool plain =
      !intPart.empty() && intPart.size() <= 18 &&
      !intPart.getAsInteger(10, i) &&
      (rest.empty() || (rest.front() == '.' && rest.size() > 1 &&
                        llvm::all_of(rest.drop_front(), llvm::isDigit)));
  if (!plain) {
    double w = std::floor(approx);
    whole = int64_t(w);
    frac = approx - w;
    return true;
  }
  double f = 0;
  if (!rest.empty()) {
    std::string digits = "0" + rest.str();
    std::from_chars(digits.data(), digits.data() + digits.size(), f);
  }
  if (!negative) {
    whole = int64_t(i);
    frac = f;
  } else {
    whole = -int64_t(i) - (f > 0 ? 1 : 0);
    frac = f > 0 ? 1 - f : 0;
  }
  return true;
}

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
    if (key == "ts") {
      if (js.peek() != JsonScanner::Kind::Number)
        return js.skip();
      StringRef text;
      if (!js.numberText(text))
        return false;
      e.hasTs = true;
      e.tsInRange = splitMicros(text, e.tsWhole, e.tsFrac, e.tsApprox);
      return true;
    }
    if (key == "dur")
      return num(e.dur, e.hasDur);
    if (key == "tid")
      return readTid(js, e.tid);
    if (key == "pid")
      return readTid(js, e.pid);
    // "id2": {"local": ...} or {"global": ...} (the format's scoped ids),
    // one flow's id as "id" is.
    if (key == "id2" && js.peek() == JsonScanner::Kind::Object)
      return js.object([&](StringRef scope) -> bool {
        if (scope != "local" && scope != "global")
          return js.skip();
        std::string v;
        if (js.peek() == JsonScanner::Kind::String) {
          if (!str(v))
            return false;
        } else {
          double n;
          if (js.peek() != JsonScanner::Kind::Number || !js.number(n))
            return js.skip();
          v = formatNumber(n);
        }
        // Separators no id of the file's own spells (a string "local:1"
        // is another id).
        e.hasId = true;
        e.localId = scope == "local";
        e.id = "\x1f" + scope.str() + "\x1f" + v;
        return true;
      });
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
        if (arg == "correlation" && js.peek() == JsonScanner::Kind::Number) {
          double v;
          if (!js.number(v))
            return false;
          // Kineto's ids count up from 0; 2^53 keeps them exact in a double.
          if (v >= 0 && v < 9007199254740992.0 && v == std::floor(v))
            e.correlation = int64_t(v);
          return true;
        }
        // Our exports' region numbers: a whole number from `least` (-2:
        // there but not one, refused where the file is our export).
        auto whole = [&](int64_t &out, size_t &at, double least) {
          at = js.offset();
          out = -2;
          if (js.peek() != JsonScanner::Kind::Number)
            return js.skip();
          double v;
          if (!js.number(v))
            return false;
          if (v >= least && v < 9007199254740992.0 && v == std::floor(v))
            out = int64_t(v);
          return true;
        };
        if (arg == "begins")
          return whole(e.begins, e.beginsAt, 1);
        if (arg == "occurrence")
          return whole(e.occurrence, e.occurrenceAt, 0);
        if (arg == "stream" && js.peek() == JsonScanner::Kind::Number) {
          double v;
          if (!js.number(v))
            return false;
          e.hasStream = asIndex(v, e.stream);
          return true;
        }
        // Our own exports' task energy and kind (KinetoTrace.h); kept only
        // where the file turns out to be one (other tools write a `kind`).
        if (arg == "d_J") {
          e.dJAt = js.offset();
          if (js.peek() == JsonScanner::Kind::Number)
            return js.number(e.dJ);
          e.dJTyped = false;
          return js.skip();
        }
        if (arg == "kind" && js.peek() == JsonScanner::Kind::String)
          return str(e.taskKind);
        if (arg == "task" && js.peek() == JsonScanner::Kind::String)
          return str(e.task);
        if (arg == "from" && js.peek() == JsonScanner::Kind::String)
          return str(e.from);
        if (arg == "to" && js.peek() == JsonScanner::Kind::String)
          return str(e.to);
        if (arg == "dependency") {
          if (js.peek() == JsonScanner::Kind::String)
            return str(e.dependency);
          e.dependencyTyped = false;
          return js.skip();
        }
        auto seconds = [&](double &v, size_t &at, bool &typed) {
          at = js.offset();
          if (js.peek() == JsonScanner::Kind::Number)
            return js.number(v);
          typed = false;
          return js.skip();
        };
        if (arg == "sigma_T_s" || arg == "sigma_d_J") {
          double &v = arg == "sigma_T_s" ? e.sigmaTS : e.sigmaDJ;
          size_t at = js.offset();
          bool ok = js.peek() == JsonScanner::Kind::Number;
          if (ok && !js.number(v))
            return false;
          if (!ok || !(v >= 0 && v <= 1e15)) {
            if (e.spreadOk)
              e.spreadAt = at;
            e.spreadOk = false;
          }
          return ok ? true : js.skip();
        }
        if (arg == "lag_s")
          return seconds(e.lagS, e.lagAt, e.lagTyped);
        if (arg == "delay_sigma_s")
          return seconds(e.sigmaS, e.sigmaAt, e.sigmaTyped);
        return js.skip();
      });
    }
    return js.skip();
  });
}

} // namespace

/// N of a range named ProfilerStep#N, N written as torch.profiler writes
/// it (decimal digits, no leading zero); none for any other name.
static std::optional<int64_t> stepNumber(StringRef name) {
  if (!name.consume_front("ProfilerStep#"))
    return std::nullopt;
  int64_t n;
  if (name.empty() || name.getAsInteger(10, n) || n < 0 ||
      std::to_string(n) != name)
    return std::nullopt;
  return n;
}

std::set<int64_t> energy::profilerSteps(const KinetoRank &r) {
  std::set<int64_t> out;
  for (const CpuRange &c : r.steps)
    out.insert(*stepNumber(c.name));
  return out;
}

bool energy::readKinetoRank(const std::string &file, StringRef text,
                            int64_t defaultRank, KinetoRank &r,
                            std::string &err, std::string &errAt,
                            progress::Line *progressLine,
                            const llvm::Regex *regions, bool launches) {
  errAt.clear();
  auto error = [&](const Twine &msg) {
    err = msg.str();
    return false;
  };
  r = KinetoRank();
  r.file = file;
  r.rank = defaultRank;
  // A UTF-8 byte order mark (editors on Windows write one) is no JSON
  // (RFC 8259 section 8.1) but says nothing either: skipped.
  text.consume_front("\xEF\xBB\xBF");
  JsonScanner js(text);
  RawEvent ev;
  // Our own export's fields (KinetoTrace.h) read wherever they are: the
  // generator names the tool, the first unusable d_J, and where.
  bool ourExport = false;
  std::string exportProblem;
  size_t exportProblemAt = 0;
  std::string problem;  // a semantic error, reported with the event index
  size_t problemAt = 0; // and the offset where that event starts
  bool sawBase = false;
  int64_t baseNs = 0; // baseTimeNanoseconds (0: absent)
  std::string baseProblem, baseProblemAt;
  // An event's start in microseconds after r.usBase (the first one read).
  auto relative = [&](const RawEvent &e) {
    if (!sawBase) {
      r.usBase = e.tsWhole;
      sawBase = true;
    }
    return double(e.tsWhole - r.usBase) + e.tsFrac;
  };
  bool sawEvents = false;
  auto onEvent = [&](size_t i) -> bool {
    if (progressLine && i % 65536 == 0)
      progressLine->update(js.consumed(), std::to_string(i) + " events");
    problemAt = js.offset();
    std::string where = "traceEvents[" + std::to_string(i) + "]: ";
    JsonScanner::Kind kind = js.peek();
    if (kind != JsonScanner::Kind::Object) {
      problem = where + (kind == JsonScanner::Kind::End
                             ? "the file ends here, inside traceEvents (cut "
                               "off while it was written?)"
                             : "not an object");
      return false;
    }
    if (!readEvent(js, ev))
      return false;
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
      if (ev.ph == "t") { // a step: the flow runs from its 's' to its 'f'
        ++r.flowSteps;
        return true;
      }
      if (!ev.hasTs || !ev.hasId) {
        problem = where + "flow event needs a numeric 'ts' and an 'id'";
        return false;
      }
      if (!ev.tsInRange) {
        problem = where + "'ts' " + formatNumber(ev.tsApprox) +
                  " us out of range (|ts| <= 1e17 us)";
        return false;
      }
      if (exportProblem.empty() && ev.ph == "s") {
        auto badSeconds = [&](const char *arg, double v, bool typed, size_t at,
                              const char *what) {
          if (typed && v >= 0 && v <= 1e15)
            return false;
          exportProblem = where + "'args." + arg + "' " +
                          (typed ? formatNumber(v) + " s is not"
                                 : std::string("is not a number:")) +
                          " a dependency's " + what + " (0 to 1e15 s)";
          exportProblemAt = at;
          return true;
        };
        if (!badSeconds("lag_s", ev.lagS, ev.lagTyped, ev.lagAt, "lag") &&
            !badSeconds("delay_sigma_s", ev.sigmaS, ev.sigmaTyped, ev.sigmaAt,
                        "delay spread") &&
            (!ev.dependencyTyped ||
             (!ev.dependency.empty() && ev.dependency != "start_to_start" &&
              ev.dependency != "finish_to_start"))) {
          exportProblem = where + "'args.dependency' " +
                          (ev.dependencyTyped ? "'" + ev.dependency + "'"
                                              : std::string("(not a string)")) +
                          " is not 'start_to_start' or 'finish_to_start'";
          exportProblemAt = problemAt;
        }
      }
      Flow f;
      f.start = ev.ph == "s";
      f.ts = relative(ev);
      f.pid = ev.pid;
      f.tid = ev.tid;
      f.key = ev.cat + "/" +
              (ev.localId ? std::to_string(ev.pid) + "\x1f" : std::string()) +
              ev.id;
      f.index = i;
      f.offset = problemAt;
      f.startToStart = ev.dependency == "start_to_start";
      f.lagS = ev.lagS;
      f.sigmaS = ev.sigmaS;
      f.from = std::move(ev.from);
      f.to = std::move(ev.to);
      r.flows.push_back(std::move(f));
      return true;
    }
    // Categories as PyTorch 2 writes them, and as Kineto wrote them before
    // (Kernel, Memcpy, Memset; compared lower-cased).
    if (lcat == "memcpy" || lcat == "memset")
      lcat = "gpu_" + lcat;
    bool gpu = ev.ph == "X" && (lcat == "kernel" || lcat == "gpu_memcpy" ||
                                lcat == "gpu_memset");
    // (Kineto before PyTorch 1.10 wrote CPU ops as "Operator".)
    bool cpuRange =
        !gpu && ev.ph == "X" &&
        (lcat == "user_annotation" || lcat == "cpu_op" || lcat == "operator");
    // A CPU range's time, usable where numeric and in range (|ts| <= 1e17
    // us, dur 0 to 1e15 us).
    bool usable =
        ev.hasTs && ev.tsInRange && ev.hasDur && ev.dur >= 0 && ev.dur <= 1e15;
    if (cpuRange && stepNumber(ev.name)) {
      r.names.push_back(std::make_unique<std::string>(ev.name));
      r.steps.push_back({ev.pid, ev.tid, 0, usable ? ev.dur : NAN,
                         *r.names.back(), i, problemAt, usable ? ev.tsWhole : 0,
                         usable ? ev.tsFrac : 0});
    }
    if (!gpu && (regions || launches) && ev.ph == "X") {
      // The ranges --regions names and the launches of GPU events (the
      // runtime's calls carry the correlation id their event does).
      if (cpuRange && regions && regions->match(ev.name)) {
        if (!usable) {
          problem = where + "CPU range '" + ev.name +
                    "', which --regions names, needs a numeric 'ts' (|ts| <= "
                    "1e17 us) and 'dur' (0 to 1e15 us)";
          return false;
        }
        r.names.push_back(std::make_unique<std::string>(std::move(ev.name)));
        // Their times made relative at the end: the GPU events set the
        // base (a CPU event's odd time must not cost theirs precision).
        r.ranges.push_back({ev.pid, ev.tid, 0, ev.dur, *r.names.back(), i,
                            problemAt, ev.tsWhole, ev.tsFrac});
      } else if ((lcat == "cuda_runtime" || lcat == "cuda_driver" ||
                  lcat == "runtime") &&
                 ev.correlation >= 0 && ev.hasTs && ev.tsInRange)
        r.launches.push_back(
            {ev.correlation, ev.pid, ev.tid, 0, ev.tsWhole, ev.tsFrac});
    }
    if (!gpu && lcat == "gpu_user_annotation") {
      // The profiler's copy of a range on the GPU's timeline: not work.
      ++r.gpuAnnotations;
      return true;
    }
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
    // Absurd magnitudes: a trace's timestamps are microseconds since the
    // epoch (~1.7e15 today) and its events last far less than 1e15 us
    // (~32 years); beyond, sums and products of them lose every digit.
    if (ev.dur > 1e15 || !ev.tsInRange) {
      problem = where + "'ts' " + formatNumber(ev.tsApprox) + " us or 'dur' " +
                formatNumber(ev.dur) +
                " us out of range (|ts| <= 1e17 us, dur <= 1e15 us)";
      return false;
    }
    if (!ev.hasStream) {
      problem = where + "GPU event has no usable 'args.stream' (a "
                        "non-negative integer below 2^31)";
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
    if (exportProblem.empty() &&
        (!ev.dJTyped ||
         (!std::isnan(ev.dJ) && !(ev.dJ >= 0 && ev.dJ <= 1e15)))) {
      exportProblem = where + "'args.d_J' " +
                      (ev.dJTyped ? formatNumber(ev.dJ) + " J is not"
                                  : std::string("is not a number:")) +
                      " a dynamic energy (0 to 1e15 J)";
      exportProblemAt = ev.dJAt;
    }
    if (exportProblem.empty() && !ev.spreadOk) {
      exportProblem = where + "'args.sigma_T_s' or 'args.sigma_d_J' is not "
                              "a spread (a number from 0 to 1e15)";
      exportProblemAt = ev.spreadAt;
    }
    if (exportProblem.empty() && ev.occurrence == -2) {
      exportProblem = where + "'args.occurrence' is not a region's begin (an "
                              "integer from 0)";
      exportProblemAt = ev.occurrenceAt;
    }
    if (exportProblem.empty() &&
        (ev.begins == -2 || (ev.begins >= 0 && ev.begins <= ev.occurrence))) {
      exportProblem = where + "'args.begins' is not a region's count of "
                              "begins (an integer above its occurrence)";
      exportProblemAt = ev.beginsAt;
    }
    r.names.push_back(std::make_unique<std::string>(std::move(ev.name)));
    StringRef name = *r.names.back();
    StringRef taskKind, task;
    if (!ev.taskKind.empty()) {
      r.names.push_back(std::make_unique<std::string>(std::move(ev.taskKind)));
      taskKind = *r.names.back();
    }
    if (!ev.task.empty()) {
      r.names.push_back(std::make_unique<std::string>(std::move(ev.task)));
      task = *r.names.back();
    }
    r.events.push_back({lcat == "kernel"       ? GpuEvent::Kernel
                        : lcat == "gpu_memcpy" ? GpuEvent::Memcpy
                                               : GpuEvent::Memset,
                        lcat == "kernel" && name.starts_with("nccl"), ev.stream,
                        relative(ev), ev.dur, name, i, problemAt, ev.dJ,
                        taskKind, task, ev.sigmaTS, ev.sigmaDJ,
                        regions || launches ? ev.correlation : -1});
    // Our own export's region: its begin (kept below only where the file
    // is one, and only on a region's slice).
    r.events.back().occurrence = ev.occurrence >= 0 ? ev.occurrence : -1;
    r.events.back().begins = ev.begins;
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
      if (key == "distributedInfo" && js.peek() == JsonScanner::Kind::Object)
        return js.object([&](StringRef k) -> bool {
          if (k == "rank" && js.peek() == JsonScanner::Kind::Number) {
            double v;
            if (!js.number(v))
              return false;
            if (!asIndex(v, r.rank))
              r.badRank = true;
            r.rankGiven = !r.badRank;
            return true;
          }
          if (k == "world_size" && js.peek() == JsonScanner::Kind::Number) {
            double v;
            if (!js.number(v))
              return false;
            if (!asIndex(v, r.worldSize))
              r.worldSize = -1;
            return true;
          }
          return js.skip();
        });
      // PyTorch 2.4 and later write every `ts` after this base (ns of the
      // epoch): ranks line up on base + ts, as HTA reads them.
      if (key == "baseTimeNanoseconds") {
        size_t at = js.offset();
        StringRef text;
        if (js.peek() != JsonScanner::Kind::Number || !js.numberText(text))
          return js.peek() == JsonScanner::Kind::Number
                     ? false
                     : js.fail("'baseTimeNanoseconds' must be a number");
        uint64_t v = 0;
        if (text.getAsInteger(10, v) || v > uint64_t(INT64_MAX)) {
          baseProblem = "'baseTimeNanoseconds' must be a non-negative "
                        "integer below 2^63 (ns); got " +
                        text.str();
          baseProblemAt = js.lineColAt(at);
          return true;
        }
        baseNs = int64_t(v);
        r.hasBaseTime = v != 0; // 0: the times are the clock's own
        return true;
      }
      if (key == "generator" && js.peek() == JsonScanner::Kind::Object)
        return js.object([&](StringRef k) -> bool {
          if (k == "tool" && js.peek() == JsonScanner::Kind::String) {
            StringRef tool;
            if (!js.string(tool))
              return false;
            ourExport = tool == kPerfettoExportTool;
            return true;
          }
          return js.skip();
        });
      if (key == "energy_model" && js.peek() == JsonScanner::Kind::String) {
        StringRef m;
        if (!js.string(m))
          return false;
        r.model = m.str();
        return true;
      }
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
            if (k == "static_power_W") {
              size_t at = js.offset();
              double w = NAN;
              if (js.peek() == JsonScanner::Kind::Number) {
                if (!js.number(w))
                  return false;
              } else if (!js.skip())
                return false;
              if (w >= 0 && w <= 1e15)
                r.staticPower = w;
              else {
                r.staticPowerError =
                    "'deviceProperties[0].static_power_W' " +
                    (std::isnan(w) ? std::string("is not a number:")
                                   : formatNumber(w) + " W is not") +
                    " a static power (0 to 1e15 W)";
                r.staticPowerErrorAt = js.lineColAt(at);
              }
              return true;
            }
            return js.skip();
          });
        });
      return js.skip();
    });
  } else {
    size_t at = js.offset();
    if (js.skip()) {
      errAt = js.lineColAt(at);
      return error("the top level must be an object or an array");
    }
    errAt = js.errorLineCol();
    return error("the top level must be an object or an array (" +
                 js.errorText() + ")");
  }
  if (!problem.empty()) {
    errAt = js.lineColAt(problemAt);
    return error(problem);
  }
  r.ownExport = ourExport;
  if (!ourExport)
    r.model.clear();
  if (!ourExport) {
    // Another tool's trace: its `kind`s and any such fields are not ours.
    for (GpuEvent &e : r.events) {
      e.dJ = NAN;
      e.taskKind = StringRef();
    }
    for (GpuEvent &e : r.events) {
      e.task = StringRef();
      e.occurrence = e.begins = -1;
    }
    for (Flow &f : r.flows) {
      f.startToStart = false;
      f.lagS = f.sigmaS = 0;
      f.from.clear();
      f.to.clear();
    }
    r.staticPower.reset();
    r.staticPowerError.clear();
  } else if (!exportProblem.empty()) {
    errAt = js.lineColAt(exportProblemAt);
    return error(exportProblem);
  }
  if (!ok || !js.finish()) {
    errAt = js.errorLineCol();
    return error("malformed JSON: " + js.errorText());
  }
  if (!sawEvents)
    return error("no 'traceEvents' array: not a Chrome trace");
  // Our own export's begins are its regions' only.
  for (GpuEvent &e : r.events)
    if (e.taskKind != "region" || e.occurrence < 0)
      e.occurrence = e.begins = -1;
  if (!baseProblem.empty()) {
    errAt = baseProblemAt;
    return error(baseProblem);
  }
  for (CpuRange &c : r.ranges)
    c.ts = double(c.whole - r.usBase) + c.frac;
  for (CpuRange &c : r.steps)
    c.ts = double(c.whole - r.usBase) + c.frac;
  for (Launch &l : r.launches)
    l.ts = double(l.whole - r.usBase) + l.frac;
  if (baseNs != 0) {
    // Whole microseconds into the base (exact), the rest onto each time.
    r.usBase += baseNs / 1000;
    if (double rest = double(baseNs % 1000) / 1000; rest != 0) {
      for (GpuEvent &e : r.events)
        e.ts += rest;
      for (Flow &f : r.flows)
        f.ts += rest;
      for (CpuRange &c : r.ranges)
        c.ts += rest;
      for (CpuRange &c : r.steps)
        c.ts += rest;
      for (Launch &l : r.launches)
        l.ts += rest;
    }
  }
  if (r.badRank)
    return error("distributedInfo.rank must be a non-negative integer "
                 "below 2^31");
  return true;
}

const GpuEvent *energy::flowSlice(llvm::ArrayRef<const GpuEvent *> byStart,
                                  const Flow &f) {
  if (f.start) {
    auto up = std::upper_bound(
        byStart.begin(), byStart.end(), f.ts,
        [](double ts, const GpuEvent *e) { return ts < e->ts; });
    if (up != byStart.begin() && (*(up - 1))->ts + (*(up - 1))->dur >= f.ts)
      return *(up - 1);
    return nullptr;
  }
  auto at =
      std::lower_bound(byStart.begin(), byStart.end(), f.ts,
                       [](const GpuEvent *e, double ts) { return e->ts < ts; });
  return at == byStart.end() ? nullptr : *at;
}

StreamSlices energy::slicesByStream(const KinetoRank &r) {
  StreamSlices out;
  for (const GpuEvent &e : r.events)
    out[e.stream].push_back(&e);
  for (auto &[stream, list] : out)
    llvm::stable_sort(list, [](const GpuEvent *a, const GpuEvent *b) {
      return a->ts < b->ts;
    });
  return out;
}

const GpuEvent *energy::boundSlice(const KinetoRank &r,
                                   const StreamSlices &slices, const Flow &f) {
  if (f.pid >= 0 && r.gpuPid >= 0 && f.pid != r.gpuPid)
    return nullptr;
  auto it = slices.find(f.tid);
  return it == slices.end() ? nullptr : flowSlice(it->second, f);
}

/// A name for a message: a templated kernel's runs to hundreds of
/// characters, cut to its first 80.
static std::string brief(StringRef name) {
  return name.size() <= 80 ? name.str() : name.take_front(77).str() + "...";
}

bool energy::keepProfilerStep(KinetoRank &r, int64_t step, std::string &err,
                              size_t &errOffset) {
  std::string want = "ProfilerStep#" + std::to_string(step);
  errOffset = SIZE_MAX;
  const CpuRange *s = nullptr;
  for (const CpuRange &c : r.steps) {
    if (c.name != want)
      continue;
    if (s) {
      err = "traceEvents[" + std::to_string(c.index) + "]: a second '" + want +
            "' (the first is traceEvents[" + std::to_string(s->index) +
            "]): which one is the step is not known";
      errOffset = c.offset;
      return false;
    }
    s = &c;
  }
  if (s && std::isnan(s->dur)) {
    err = "traceEvents[" + std::to_string(s->index) + "]: profiler step '" +
          want +
          "' needs a numeric 'ts' (|ts| <= 1e17 us) and 'dur' (0 to "
          "1e15 us)";
    errOffset = s->offset;
    return false;
  }
  if (!s) {
    std::set<int64_t> numbers = profilerSteps(r);
    std::string held;
    size_t listed = 0;
    for (int64_t n : numbers) {
      if (listed == 8) {
        held += ", ...";
        break;
      }
      held += (listed++ ? ", " : "") + std::to_string(n);
    }
    err = "the trace holds no CPU range '" + want + "' (" +
          (numbers.empty() ? std::string("it holds no profiler step: "
                                         "torch.profiler writes one per call "
                                         "of its step(), as an event of "
                                         "'cat' \"user_annotation\"")
                           : "its steps: " + held) +
          ")";
    // A trace without Kineto (the legacy profiler's, no 'cat') holds
    // neither: its want of GPU events is the cause to say first.
    if (r.events.empty())
      err = "no GPU events (kernels, memcpy, memset) in the trace, and " + err +
            ": was the profiler recording CUDA through Kineto? "
            "torch.profiler needs ProfilerActivity.CUDA, on a GPU";
    return false;
  }
  r.step = step;
  // From its begin up to its end: a launch at the instant one step ends and
  // the next begins is the next one's.
  double begin = s->ts, end = s->ts + s->dur;
  // torch.profiler's steps follow one another: a step that overlaps another
  // of its process leaves the launches between them in both.
  for (const CpuRange &c : r.steps)
    if (&c != s && c.pid == s->pid && !std::isnan(c.dur) && c.ts < end &&
        c.ts + c.dur > begin) {
      // Times as the trace writes them.
      auto span = [](const CpuRange &x) {
        return "ts " + formatNumber(double(x.whole) + x.frac) + ", dur " +
               formatNumber(x.dur) + " us";
      };
      err = "traceEvents[" + std::to_string(s->index) + "]: profiler step '" +
            want + "' (" + span(*s) + ") overlaps '" + std::string(c.name) +
            "' (traceEvents[" + std::to_string(c.index) + "], " + span(c) +
            "): the launches between them would be in both steps";
      errOffset = s->offset;
      return false;
    }
  auto inStep = [&](int64_t pid, double t) {
    return pid == s->pid && t >= begin && t < end;
  };
  // Whether each correlation id's launch (the first, as groupRegions
  // takes it) lies in the step.
  llvm::DenseMap<int64_t, bool> launchedIn;
  for (const Launch &l : r.launches)
    launchedIn.try_emplace(l.correlation, inStep(l.pid, l.ts));
  std::vector<bool> keep(r.events.size());
  r.otherSteps = r.stepUnlaunched = 0;
  for (size_t e = 0; e < r.events.size(); ++e) {
    const GpuEvent &g = r.events[e];
    auto it =
        g.correlation < 0 ? launchedIn.end() : launchedIn.find(g.correlation);
    keep[e] = it != launchedIn.end() && it->second;
    if (!keep[e])
      ++(it == launchedIn.end() ? r.stepUnlaunched : r.otherSteps);
  }
  if (!llvm::is_contained(keep, true)) {
    err = "'" + want + "' (traceEvents[" + std::to_string(s->index) +
          "], pid " + std::to_string(s->pid) + ") launched none of the " +
          "trace's " + std::to_string(r.events.size()) + " GPU events (" +
          std::to_string(r.otherSteps) + " launched outside it, " +
          std::to_string(r.stepUnlaunched) +
          " without a launch in the trace): nothing to schedule";
    errOffset = s->offset;
    return false;
  }
  // A flow on a stream is kept where it binds (flowSlice, among all the
  // trace's events) to a kept event: a flow end binds to the next event of
  // its stream, which may lie past a gap; a CPU thread's flow (another
  // process's, as flowDependencies tells them), where it lies in the step.
  StreamSlices slices = slicesByStream(r);
  llvm::erase_if(r.flows, [&](const Flow &f) {
    if (f.pid >= 0 && r.gpuPid >= 0 && f.pid != r.gpuPid)
      return !inStep(f.pid, f.ts);
    const GpuEvent *bound = boundSlice(r, slices, f);
    return !bound || !keep[size_t(bound - r.events.data())];
  });
  size_t kept = 0;
  for (size_t e = 0; e < r.events.size(); ++e)
    if (keep[e])
      r.events[kept++] = std::move(r.events[e]);
  r.events.erase(r.events.begin() + ptrdiff_t(kept), r.events.end());
  llvm::erase_if(r.ranges,
                 [&](const CpuRange &c) { return !inStep(c.pid, c.ts); });
  llvm::erase_if(r.launches,
                 [&](const Launch &l) { return !inStep(l.pid, l.ts); });
  return true;
}

bool energy::groupRegions(KinetoRank &r, std::string &err, size_t &errOffset) {
  // Each range's begin among its process's ranges of its name (the job's
  // er_begin counts them all, those that launch nothing too).
  std::vector<int64_t> occurrenceOf(r.ranges.size()), beginsOf(r.ranges.size());
  {
    std::vector<size_t> order(r.ranges.size());
    for (size_t i = 0; i < order.size(); ++i)
      order[i] = i;
    llvm::stable_sort(order, [&](size_t a, size_t b) {
      const CpuRange &x = r.ranges[a], &y = r.ranges[b];
      return std::tie(x.pid, x.name, x.ts) < std::tie(y.pid, y.name, y.ts);
    });
    for (size_t k = 0; k < order.size(); ++k) {
      const CpuRange &c = r.ranges[order[k]];
      bool first = k == 0 || r.ranges[order[k - 1]].pid != c.pid ||
                   r.ranges[order[k - 1]].name != c.name;
      occurrenceOf[order[k]] = first ? 0 : occurrenceOf[order[k - 1]] + 1;
    }
    // Each name's begins in its process: the last one's number plus one.
    for (size_t k = order.size(); k-- > 0;) {
      const CpuRange &c = r.ranges[order[k]];
      bool last = k + 1 == order.size() ||
                  r.ranges[order[k + 1]].pid != c.pid ||
                  r.ranges[order[k + 1]].name != c.name;
      beginsOf[order[k]] =
          last ? occurrenceOf[order[k]] + 1 : beginsOf[order[k + 1]];
    }
  }
  // The launch of each correlation id (the first, where a trace repeats
  // one), and per launching thread the GPU events by launch time.
  llvm::DenseMap<int64_t, const Launch *> launchOf;
  r.reusedCorrelations = 0;
  for (const Launch &l : r.launches)
    r.reusedCorrelations += !launchOf.try_emplace(l.correlation, &l).second;
  using Thread = std::pair<int64_t, int64_t>; // pid, tid
  std::map<Thread, std::vector<size_t>> rangesOf;
  for (size_t i = 0; i < r.ranges.size(); ++i)
    rangesOf[{r.ranges[i].pid, r.ranges[i].tid}].push_back(i);
  // Why an event stays as it is (named in an overlap's error).
  enum Why : uint8_t { Grouped, Collective, OwnRegion, NoLaunch, Outside };
  std::vector<Why> why(r.events.size(), Outside);
  std::map<Thread, std::vector<std::pair<double, size_t>>> launchedOn;
  r.unlaunched = r.outside = r.grouped = r.otherThread = r.ambiguous = 0;
  for (size_t e = 0; e < r.events.size(); ++e) {
    const GpuEvent &g = r.events[e];
    if (g.nccl) { // a collective, matched across ranks: never a region's
      why[e] = Collective;
      continue;
    }
    if (g.taskKind == "region") { // our own export's region, read back
      why[e] = OwnRegion;
      continue;
    }
    auto it = g.correlation < 0 ? launchOf.end() : launchOf.find(g.correlation);
    if (it == launchOf.end()) {
      why[e] = NoLaunch;
      // (Our own exports hold no launches: not worth a count there.)
      r.unlaunched += !r.ownExport;
      continue;
    }
    launchedOn[{it->second->pid, it->second->tid}].push_back(
        {it->second->ts, e});
  }
  auto end = [&](size_t i) { return r.ranges[i].ts + r.ranges[i].dur; };
  auto byStart = [&](std::vector<size_t> &ranges) {
    llvm::stable_sort(ranges, [&](size_t a, size_t b) {
      const CpuRange &x = r.ranges[a], &y = r.ranges[b];
      return x.ts < y.ts || (x.ts == y.ts && x.dur > y.dur);
    });
  };
  std::vector<ptrdiff_t> owner(r.events.size(), -1);
  std::vector<bool> encloses(r.ranges.size(), false);
  // A launch on a thread with kept ranges: the innermost open there (a
  // sweep of its ranges, by start, an enclosing one first, and its
  // launches in time, with a stack of the open ranges whose top, once the
  // ranges ended before the launch are popped, is the latest started that
  // has not ended). Linear after the sorts.
  std::map<int64_t, std::vector<std::pair<double, size_t>>> homeless;
  for (auto &[thread, launches] : launchedOn) {
    auto own = rangesOf.find(thread);
    if (own == rangesOf.end()) {
      std::vector<std::pair<double, size_t>> &h = homeless[thread.first];
      h.insert(h.end(), launches.begin(), launches.end());
      continue;
    }
    std::vector<size_t> &ranges = own->second;
    byStart(ranges);
    llvm::stable_sort(launches, [](const auto &a, const auto &b) {
      return a.first < b.first;
    });
    std::vector<size_t> open;
    size_t next = 0;
    for (const auto &[t, e] : launches) {
      for (; next < ranges.size() && r.ranges[ranges[next]].ts <= t; ++next) {
        while (!open.empty() && end(open.back()) < r.ranges[ranges[next]].ts)
          open.pop_back();
        open.push_back(ranges[next]);
      }
      while (!open.empty() && end(open.back()) < t)
        open.pop_back();
      if (open.empty())
        ++r.outside;
      else {
        owner[e] = ptrdiff_t(open.back());
        // The range around it, still open, loses this launch to the
        // inner one.
        if (open.size() > 1 && end(open[open.size() - 2]) >= t)
          encloses[open[open.size() - 2]] = true;
      }
    }
  }
  // A launch on a thread with no kept range (PyTorch's autograd engine
  // launches a backward pass's kernels on its own thread while the thread
  // that called backward() waits in its range): the one kept range then
  // open on another thread of its process -- per thread the innermost; of
  // several threads', none. A sweep over the process's ranges by start and
  // the launches in time, keeping per thread a stack of its open ranges.
  for (auto &[pid, launches] : homeless) {
    std::vector<size_t> ranges;
    for (auto &[thread, own] : rangesOf)
      if (thread.first == pid)
        ranges.insert(ranges.end(), own.begin(), own.end());
    byStart(ranges);
    llvm::stable_sort(launches, [](const auto &a, const auto &b) {
      return a.first < b.first;
    });
    std::map<int64_t, std::vector<size_t>> open; // per tid
    size_t next = 0;
    for (const auto &[t, e] : launches) {
      for (; next < ranges.size() && r.ranges[ranges[next]].ts <= t; ++next) {
        std::vector<size_t> &stack = open[r.ranges[ranges[next]].tid];
        while (!stack.empty() && end(stack.back()) < r.ranges[ranges[next]].ts)
          stack.pop_back();
        stack.push_back(ranges[next]);
      }
      // (A thread's stack goes once empty, and the walk stops at a second
      // thread with a range open: linear in all, whatever the threads.)
      std::optional<size_t> only;
      bool several = false;
      for (auto it = open.begin(); it != open.end() && !several;) {
        std::vector<size_t> &stack = it->second;
        while (!stack.empty() && end(stack.back()) < t)
          stack.pop_back();
        if (stack.empty()) {
          it = open.erase(it);
          continue;
        }
        several = only.has_value();
        only = stack.back();
        ++it;
      }
      if (several)
        ++r.ambiguous;
      else if (!only)
        ++r.outside;
      else {
        owner[e] = ptrdiff_t(*only);
        ++r.otherThread;
      }
    }
  }
  // One event per range occurrence that launched any.
  struct Region {
    double start = INFINITY, end = -INFINITY, busy = 0;
    std::map<int64_t, std::pair<double, double>> streams; // busy, first
    bool kernel = false;
    GpuEvent::Kind kind = GpuEvent::Memcpy;
  };
  std::map<size_t, Region> regions; // by range
  std::map<size_t, size_t> sliceOf; // range -> its slice in `kept`
  std::vector<GpuEvent> kept;
  std::vector<Why> keptWhy;
  for (size_t e = 0; e < r.events.size(); ++e) {
    const GpuEvent &g = r.events[e];
    if (owner[e] < 0) {
      kept.push_back(g);
      keptWhy.push_back(why[e]);
      continue;
    }
    Region &reg = regions[size_t(owner[e])];
    if (g.ts < reg.start && !reg.kernel)
      reg.kind = g.kind;
    reg.kernel |= g.kind == GpuEvent::Kernel;
    reg.start = std::min(reg.start, g.ts);
    reg.end = std::max(reg.end, g.ts + g.dur);
    reg.busy += g.dur;
    auto [it, fresh] = reg.streams.try_emplace(g.stream, 0, g.ts);
    it->second.first += g.dur;
    it->second.second = std::min(it->second.second, g.ts);
    ++r.grouped;
  }
  // A region's begins in the iteration: the most of any process of the
  // rank (each process counts its own; the plan's lines must cover every
  // begin of whichever process loads it). Regions none of whose begins
  // launched a GPU event have no task: kept by name with their begins, so
  // that the plan still gives each begin a line (the job's er_begin of
  // them would otherwise match none).
  std::map<llvm::StringRef, int64_t> mostBegins;
  for (size_t i = 0; i < r.ranges.size(); ++i) {
    int64_t &n = mostBegins[r.ranges[i].name];
    n = std::max(n, beginsOf[i]);
  }
  {
    std::set<llvm::StringRef> withTask;
    for (const auto &kv : regions)
      withTask.insert(r.ranges[kv.first].name);
    r.regionsWithoutTasks.clear();
    // (A range of no name is no region a job can begin by name.)
    for (const auto &[name, n] : mostBegins)
      if (!name.empty() && !withTask.count(name))
        r.regionsWithoutTasks[name.str()] = n;
  }
  for (const auto &[range, reg] : regions) {
    const CpuRange &c = r.ranges[range];
    // The stream that ran most of its time; of streams tied, the one whose
    // first event started first.
    int64_t stream = reg.streams.begin()->first;
    for (const auto &[s, busy] : reg.streams) {
      const auto &best = reg.streams.at(stream);
      if (busy.first > best.first ||
          (busy.first == best.first && busy.second < best.second))
        stream = s;
    }
    GpuEvent g{
        reg.kernel ? GpuEvent::Kernel : reg.kind,
        false,
        stream,
        reg.start,
        wholeNanoseconds(reg.end - reg.start,
                         std::max(std::fabs(reg.start), std::fabs(reg.end))),
        c.name,
        c.index,
        c.offset};
    sliceOf[range] = kept.size();
    g.taskKind = "region";
    g.occurrence = occurrenceOf[range];
    g.begins = mostBegins[c.name];
    if (encloses[range] && r.enclosing.empty())
      r.enclosing = c.name.str();
    r.enclosingRegions += encloses[range];
    g.busy = reg.busy;
    kept.push_back(g);
    keptWhy.push_back(Grouped);
  }
  // Flows bind to slices by time on their stream (KinetoImport): one that
  // binds to a grouped event -- its start inside it, its end where the
  // event starts -- binds to its region's slice instead, whatever stream
  // the event ran on, so that the dependency holds between the regions.
  {
    StreamSlices slices = slicesByStream(r);
    for (Flow &f : r.flows) {
      const GpuEvent *e = boundSlice(r, slices, f);
      if (e && owner[e - r.events.data()] >= 0)
        f.region = kept[sliceOf.at(size_t(owner[e - r.events.data()]))].index;
    }
  }
  // A region's task holds its stream from its first event to its last:
  // no other event of that stream may run inside that span (one that
  // lasts, inside it whole or by more than the profiler's microsecond at an
  // end) -- an event left as it is, another region's slice, or another
  // region's own event run on this stream (its slice on another).
  struct Item {
    const GpuEvent *e; // the slice or event
    Why why;           // how it got here (Grouped: a region's slice)
    ptrdiff_t region;  // its region's range: a slice's own, or a member's
    bool slice;
  };
  std::vector<Item> items;
  for (size_t i = 0; i < kept.size(); ++i)
    items.push_back({&kept[i], keptWhy[i], -1, keptWhy[i] == Grouped});
  for (const auto &[range, slice] : sliceOf)
    items[slice].region = ptrdiff_t(range);
  for (size_t e = 0; e < r.events.size(); ++e)
    if (owner[e] >= 0)
      items.push_back({&r.events[e], Grouped, owner[e], false});
  llvm::stable_sort(items, [](const Item &a, const Item &b) {
    return a.e->stream < b.e->stream ||
           (a.e->stream == b.e->stream && a.e->ts < b.e->ts);
  });
  auto clash = [](const Item &x, const Item &y) {
    // A slice and anything not its own region's.
    return (x.slice || y.slice) && (x.region < 0 || x.region != y.region);
  };
  for (size_t k = 1, held = 0; k < items.size(); ++k) {
    const Item &e = items[k], &h = items[held];
    if (e.e->stream != h.e->stream) {
      held = k;
      continue;
    }
    double hEnd = h.e->ts + h.e->dur, eEnd = e.e->ts + e.e->dur;
    double overlap = hEnd - e.e->ts;
    bool inside = eEnd <= hEnd || (e.e->ts == h.e->ts);
    bool lasts = e.e->dur > 0 && h.e->dur > 0;
    if (lasts && overlap > 0 && (overlap > 1.0 || inside) && clash(e, h)) {
      const Item &reg = h.slice ? h : e, &other = h.slice ? e : h;
      const GpuEvent &g = *reg.e, &o = *other.e;
      std::string how;
      if (other.slice)
        how = "region ";
      else if (other.region >= 0)
        how = "an event of region '" + r.ranges[other.region].name.str() +
              "' (its slice is on another stream) ";
      else
        switch (other.why) {
        case Collective:
          how = "the NCCL kernel ";
          break;
        case OwnRegion:
          how = "the exported region ";
          break;
        case NoLaunch:
          how = "the event (no launch of it in the trace) ";
          break;
        default:
          how = "the event (launched outside every matching range) ";
          break;
        }
      err = llvm::formatv(
                "traceEvents[{0}]: region '{1}' (the GPU events launched "
                "inside it: {2} us from its first to its last, on stream "
                "{3}) overlaps {4}traceEvents[{5}] ('{6}') on that stream "
                "(the later starts {7} us before the earlier ends): a "
                "region's task holds its stream from its first event to its "
                "last{8}",
                g.index, brief(g.name), formatNumber(g.dur), g.stream, how,
                o.index, brief(o.name),
                formatNumber(std::round(overlap * 1000) / 1000),
                other.why == Collective && !other.slice
                    ? " (a collective is never a region's: no pattern makes "
                      "this region hold its stream; --regions without it)"
                    : "; match (--regions) ranges whose kernels no other "
                      "event of their stream interleaves")
                .str();
      errOffset = g.offset;
      return false;
    }
    if (eEnd > hEnd)
      held = k;
  }
  r.events = std::move(kept);
  // Read for this only (their counts kept).
  r.rangesRead = r.ranges.size();
  r.launchesRead = r.launches.size();
  r.ranges = {};
  r.launches = {};
  return true;
}
