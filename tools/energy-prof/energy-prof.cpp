//===- energy-prof.cpp - characterize kernels into a signature DB ---------===//
//
//   energy-prof characterize --device sim:a100 --kernels kernels.json
//       [--runs N] [--clocks 1410,1200 | --all-clocks [--clock-stride K]]
//       [--power-limits 400,250] [--allow-clock-changes] [--seed S]
//       [--thermal] -o db.json
//   energy-prof probe --device cuda:0|sim:h100
//   energy-prof measure-composite --device sim:a100 --kernels kernels.json
//       --sequence gemm,copy,gemm | --concurrent copy,copy [--contention]
//       --name layer [--runs N] -o measured.json
//   energy-prof merge rank0.json rank1.json ... -o db.json
//   energy-prof profile (--clocks a,b | --all-clocks [--clock-stride K] |
//       --adaptive [--max-clocks B] | --power-limits W1,W2 [--clocks a,b |
//       --all-clocks] [--settle-iterations S]) [--iterations-per-clock N]
//       [--warmup W]
//       [--device D]
//       --allow-clock-changes -o db.json -- CMD ...
//   energy-prof fit --model token-law|energylens --data runs.csv -o model.json
//   energy-prof plan-clocks plan.json --plan-device stage0 [--schedule S]
//       [--by-key] -o clocks.txt      ("task sm_mhz" lines for er_plan_load)
//   energy-prof run-plan plan.json --device cuda|sim:h100|cuda:0,cuda:1
//       [--schedule NAME] [--mode lock|timeline] [--dry-run]
//       [--allow-clock-changes] [--start-delay S] [--iterations N] -- CMD ...
//
// kernels.json (docs/SIGNATURE-DB.md, "The kernels file"):
// [{"key": "gemm", "flops": 1.4e11, "bytes": 2e8}, ...]; optional "reuses":
// the key of a kernel whose data it reads. A composite
// {"key": "layer", "sequence": ["ln", ["gemm", 4]]} is not run: at every
// operating point its entry is the sequential composition (calculus seq) of
// its kernels' measured entries.
// Clock changes happen only with --allow-clock-changes and are undone on
// every unwinding exit path (ClockGuard).
//
//===----------------------------------------------------------------------===//

#include "calculus/Signature.h"
#include "calculus/models/EnergyLens.h"
#include "calculus/models/FlopByte.h"
#include "calculus/models/ServingValidation.h"
#include "calculus/models/TokenLaw.h"
#include "runtime/AtomicFile.h"
#include "runtime/Characterize.h"
#include "runtime/Nvml.h"
#include "runtime/Progress.h"
#include "runtime/RestoreRecord.h"
#include "runtime/SimDevice.h"
#include "runtime/Version.h"
#include "runtime/db/SignatureDb.h"
#include "runtime/formats/Composites.h"
#include "runtime/formats/Csv.h"
#include "runtime/formats/Input.h"
#include "runtime/formats/Kernels.h"
#include "runtime/formats/ModelFile.h"
#include "runtime/plan/Plan.h"
#include "tools/HelpTypos.h"
#include "tools/OutOfMemory.h"
#include "tools/VersionPrinter.h"
#include "tools/energy-prof/Route.h"
#include "tools/energy-prof/Serving.h"
#if ENERGY_CUDA_KERNELS
#include "runtime/kernels/CudaDevice.h"
#endif

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sys/stat.h>
#include <sys/wait.h>
#include <tuple>
#include <unistd.h>

using namespace llvm;
using namespace energy::rt;
using energy::formats::CompositeSpec;
using energy::formats::readKernels;

static cl::OptionCategory category("energy-prof options");
// The subcommands: `energy-prof <command> --help` lists each one's options.
static cl::SubCommand characterizeSub(
    "characterize",
    "measure kernels at each operating point into a signature DB");
static cl::SubCommand
    probeSub("probe",
             "print a device's identity, clocks and power-limit range");
static cl::SubCommand measureCompositeSub(
    "measure-composite",
    "measure a sequence or a concurrent set of kernels as one composite");
static cl::SubCommand
    fitSub("fit",
           "fit an inference model (token-law, energylens, flop-byte) to "
           "measured runs");
static cl::SubCommand mergeSub("merge",
                               "pool per-rank shards into one signature DB");
static cl::SubCommand profileSub(
    "profile",
    "profile a job across clocks (or power limits, or both) in its own "
    "processes, then pool its shards: energy-prof profile "
    "--clocks a,b|--all-clocks|--adaptive|--power-limits W1,W2 [--clocks a,b] "
    "--allow-clock-changes [-o db.json] -- CMD ARGS... (without -o the DB "
    "goes to standard output)");
static cl::SubCommand
    routeSub("route",
             "compare routing policies across models under an energy supply");
static cl::SubCommand validateServingSub(
    "validate-serving",
    "validate the inference models on ML.ENERGY measurements");
static cl::SubCommand servePlanSub("serve-plan",
                                   "recommend a batch cap under a latency SLO");
static cl::SubCommand
    restoreSub("restore", "reset devices that processes now gone left changed");
static cl::SubCommand
    runPlanSub("run-plan",
               "apply a plan around a command (opt-in clock changes)");
static cl::SubCommand
    planClocksSub("plan-clocks",
                  "one plan device's clock per task, for er_plan_load");
/// The selected subcommand's name (main), for messages.
static std::string command;
// The positional files, one list per kind so that each command's usage
// line names its own.
static cl::list<std::string> shardList(cl::Positional,
                                       cl::desc("<shard.json ...>"),
                                       cl::sub(mergeSub), cl::cat(category));
static cl::list<std::string> planList(cl::Positional, cl::desc("<plan.json>"),
                                      cl::sub(runPlanSub),
                                      cl::sub(planClocksSub),
                                      cl::cat(category));
static cl::list<std::string> fleetList(cl::Positional, cl::desc("<fleet.json>"),
                                       cl::sub(routeSub), cl::cat(category));
static cl::list<std::string> measurementList(
    cl::Positional, cl::desc("<ML.ENERGY measurement files or folders ...>"),
    cl::sub(validateServingSub), cl::sub(servePlanSub), cl::cat(category));
/// The running command's positional files.
static const cl::list<std::string> &positionalFiles() {
  if (mergeSub)
    return shardList;
  if (runPlanSub || planClocksSub)
    return planList;
  if (routeSub)
    return fleetList;
  return measurementList;
}
static cl::opt<std::string> deviceName(
    "device",
    cl::desc("sim:a100|sim:a40|sim:h100|sim:h200|sim:b200 or cuda:<index> "
             "(run-plan: also cuda, each plan device on its "
             "index, or a comma list, one per plan device)"),
    cl::sub(characterizeSub), cl::sub(probeSub), cl::sub(measureCompositeSub),
    cl::sub(runPlanSub), cl::sub(profileSub), cl::cat(category));
static cl::opt<std::string>
    modelName("model", cl::desc("fit: token-law|energylens|flop-byte"),
              cl::sub(fitSub), cl::cat(category));
static cl::opt<std::string>
    dataFile("data",
             cl::desc("fit: CSV (token-law: q_w,q_kv,tau,e,cell; energylens: "
                      "input_tokens,max_tokens,batch,tp,pp,e,cell; "
                      "flop-byte: tokens,token_squares,batch,history,d,cell)"),
             cl::sub(fitSub), cl::cat(category));
static cl::opt<std::string>
    baseModel("base",
              cl::desc("fit --model flop-byte: the model file whose "
                       "structure (parameters, attention_flops_per_pair, "
                       "weight_bytes, kv_bytes_per_token, memory_factor, "
                       "clocks) the steps ran; its coefficients are refitted"),
              cl::sub(fitSub), cl::cat(category));
static cl::opt<std::string> kernelsFile("kernels",
                                        cl::desc("JSON list of kernels"),
                                        cl::sub(characterizeSub),
                                        cl::sub(measureCompositeSub),
                                        cl::cat(category));
static cl::opt<unsigned> runs("runs", cl::desc("independent runs"),
                              cl::init(10), cl::sub(characterizeSub),
                              cl::sub(measureCompositeSub), cl::sub(routeSub),
                              cl::cat(category));
static cl::list<int> clocks("clocks", cl::desc("SM clocks to sweep (MHz)"),
                            cl::CommaSeparated, cl::sub(characterizeSub),
                            cl::sub(profileSub), cl::cat(category));
static cl::opt<bool> allClocks("all-clocks",
                               cl::desc("sweep every supported SM clock"),
                               cl::sub(characterizeSub), cl::sub(profileSub),
                               cl::cat(category));
static cl::opt<unsigned> clockStride(
    "clock-stride",
    cl::desc("with --all-clocks: every K-th supported clock, counted down "
             "from the highest (which is always swept)"),
    cl::init(1), cl::sub(characterizeSub), cl::sub(profileSub),
    cl::cat(category));
static cl::list<double> powerLimitsW(
    "power-limits",
    cl::desc("power limits to sweep (W): characterize at each clock, profile "
             "at the default clock (or at each of --clocks, --all-clocks)"),
    cl::CommaSeparated, cl::sub(characterizeSub), cl::sub(profileSub),
    cl::cat(category));
static cl::opt<bool>
    allowClockChanges("allow-clock-changes",
                      cl::desc("allow changing SM clocks (restored on exit)"),
                      cl::sub(characterizeSub), cl::sub(profileSub),
                      cl::sub(runPlanSub), cl::cat(category));
static cl::opt<bool> forceRestore(
    "force",
    cl::desc("also restore the devices of records from other PID namespaces "
             "(a container's processes, which cannot be checked from here): "
             "only once those processes are gone"),
    cl::sub(restoreSub), cl::cat(category));
static cl::opt<uint64_t> seed("seed", cl::desc("simulated device seed"),
                              cl::init(1), cl::sub(characterizeSub),
                              cl::sub(probeSub), cl::sub(measureCompositeSub),
                              cl::sub(runPlanSub), cl::sub(profileSub),
                              cl::sub(routeSub), cl::cat(category));
static cl::opt<bool> thermal("thermal",
                             cl::desc("simulated device: thermal coupling on"),
                             cl::sub(characterizeSub), cl::sub(probeSub),
                             cl::sub(measureCompositeSub), cl::sub(runPlanSub),
                             cl::sub(profileSub), cl::cat(category));
static cl::list<std::string> sequence(
    "sequence", cl::desc("measure-composite: kernel keys run back to back"),
    cl::CommaSeparated, cl::sub(measureCompositeSub), cl::cat(category));
static cl::list<std::string> concurrent(
    "concurrent",
    cl::desc("measure-composite: kernel keys run concurrently (one stream "
             "each)"),
    cl::CommaSeparated, cl::sub(measureCompositeSub), cl::cat(category));
static cl::opt<bool> cacheResidency(
    "cache", cl::desc("simulated device: L2 residency of reused data on"),
    cl::sub(characterizeSub), cl::sub(probeSub), cl::sub(measureCompositeSub),
    cl::sub(runPlanSub), cl::sub(profileSub), cl::cat(category));
static cl::opt<bool> contention(
    "contention",
    cl::desc("simulated device: SM and HBM sharing between concurrent kernels"),
    cl::sub(characterizeSub), cl::sub(probeSub), cl::sub(measureCompositeSub),
    cl::sub(runPlanSub), cl::sub(profileSub), cl::cat(category));
static cl::opt<std::string>
    compositeName("name",
                  cl::desc("measure-composite: the composite's symbol name"),
                  cl::sub(measureCompositeSub), cl::cat(category));
static cl::opt<std::string> planSchedule(
    "schedule", cl::desc("run-plan: the plan's schedule (when it has several)"),
    cl::sub(runPlanSub), cl::sub(planClocksSub), cl::cat(category));
static cl::opt<std::string>
    planDevice("plan-device", cl::desc("plan-clocks: the plan's device"),
               cl::sub(planClocksSub), cl::cat(category));
static cl::opt<bool> planByKey(
    "by-key",
    cl::desc("plan-clocks: name each task filled from a DB entry KEY[k], the "
             "k-th begin of region KEY in an iteration (for jobs whose "
             "regions are named after the DB's keys, as profiled)"),
    cl::sub(planClocksSub), cl::cat(category));
static cl::opt<std::string>
    planMode("mode",
             cl::desc("run-plan: lock (one clock per device) or timeline "
                      "(open-loop switches at the planned times)"),
             cl::sub(runPlanSub), cl::cat(category));
static cl::opt<bool> dryRun("dry-run",
                            cl::desc("run-plan: print the actions only"),
                            cl::sub(runPlanSub), cl::cat(category));
static cl::opt<double>
    startDelay("start-delay",
               cl::desc("run-plan timeline: s before iteration 0"), cl::init(0),
               cl::sub(runPlanSub), cl::cat(category));
static cl::opt<unsigned>
    planIterations("iterations",
                   cl::desc("run-plan timeline: iterations to follow (0: all)"),
                   cl::init(0), cl::sub(runPlanSub), cl::cat(category));
static cl::opt<std::string>
    simState("sim-state",
             cl::desc("simulated devices: mirror each device's clock and "
                      "power limit into PREFIX.<device>.{clock,power}"),
             cl::sub(characterizeSub), cl::sub(measureCompositeSub),
             cl::sub(probeSub), cl::sub(runPlanSub), cl::cat(category));
static cl::opt<unsigned> iterationsPerClock(
    "iterations-per-clock",
    cl::desc("profile: iterations recorded at each clock (or power limit)"),
    cl::init(3), cl::sub(profileSub), cl::cat(category));
static cl::opt<unsigned> warmupIterations(
    "warmup",
    cl::desc("profile: iterations at the default clock first, not "
             "recorded"),
    cl::init(2), cl::sub(profileSub), cl::cat(category));
static cl::opt<unsigned> settleIterations(
    "settle-iterations",
    cl::desc("profile --power-limits: iterations at each limit (with "
             "--clocks, at its first and highest clock) before the recorded "
             "ones, not recorded (a limit takes effect over hundreds of "
             "milliseconds)"),
    cl::init(1), cl::sub(profileSub), cl::cat(category));
static cl::opt<uint64_t> routeHorizon(
    "horizon", cl::desc("route: slots to simulate (overrides the fleet file)"),
    cl::sub(routeSub), cl::cat(category));
static cl::list<uint64_t> routeHorizons(
    "horizons",
    cl::desc("route: also report E[D_T] at these horizons (slots); with "
             "--csv, one row per policy and horizon"),
    cl::CommaSeparated, cl::sub(routeSub), cl::cat(category));
static cl::opt<bool>
    routePerTask("per-task",
                 cl::desc("route: draw every task (the reference) instead of "
                          "one aggregate per slot"),
                 cl::sub(routeSub), cl::cat(category));
static cl::opt<std::string>
    routeCsv("csv", cl::desc("route: write the horizon table (CSV) here"),
             cl::sub(routeSub), cl::cat(category));
static cl::opt<std::string>
    routeSvg("svg",
             cl::desc("route: plot E[D_T] against --horizons, log-log, per "
                      "policy (SVG) here"),
             cl::sub(routeSub), cl::cat(category));
static cl::opt<std::string> serveModel("serve-model",
                                       cl::desc("serve-plan: the model id"),
                                       cl::sub(servePlanSub),
                                       cl::cat(category));
static cl::opt<std::string>
    serveGpu("gpu", cl::desc("serve-plan: A100, H100, H200 or B200"),
             cl::sub(servePlanSub), cl::cat(category));
static cl::opt<int> serveTp("tp",
                            cl::desc("serve-plan: tensor parallel degree"),
                            cl::init(1), cl::sub(servePlanSub),
                            cl::cat(category));
static cl::opt<int> serveGpus(
    "gpus",
    cl::desc("serve-plan: the deployment's GPU count, where a model was "
             "measured in several with one TP (0: the only one)"),
    cl::init(0), cl::sub(servePlanSub), cl::cat(category));
static cl::opt<double>
    serveSloMs("slo-p90-itl-ms",
               cl::desc("serve-plan: the p90 inter-token latency SLO (ms)"),
               cl::sub(servePlanSub), cl::cat(category));
static cl::opt<std::string> serveClockModel(
    "clock-model",
    cl::desc("serve-plan: also choose the SM clock with this simulated "
             "GPU's physical model (sim:h100, ...), the measurements' GPU: "
             "SIMULATED, the measurements are at the default clocks"),
    cl::sub(servePlanSub), cl::cat(category));
static cl::opt<double> flopJoules(
    "joules-per-flop",
    cl::desc("validate-serving: the uncalibrated FLOP/byte model's J/FLOP"),
    cl::init(0.7e-12), cl::sub(validateServingSub), cl::cat(category));
static cl::opt<double> byteJoules(
    "joules-per-byte",
    cl::desc("validate-serving: the uncalibrated FLOP/byte model's J/byte"),
    cl::init(3.2e-11), cl::sub(validateServingSub), cl::cat(category));
static cl::opt<bool> quiet("quiet", cl::desc("no progress on stderr"),
                           cl::sub(characterizeSub), cl::sub(probeSub),
                           cl::sub(measureCompositeSub), cl::sub(fitSub),
                           cl::sub(mergeSub), cl::sub(profileSub),
                           cl::sub(routeSub), cl::sub(validateServingSub),
                           cl::sub(servePlanSub), cl::sub(restoreSub),
                           cl::sub(runPlanSub), cl::sub(planClocksSub),
                           cl::cat(category));
static cl::opt<bool> adaptiveClocks(
    "adaptive",
    cl::desc("profile: choose the clocks as the sweep goes (coarse descent "
             "to the energy valley, then bisection where the energy changes "
             "most; docs/SIGNATURE-DB.md), at most --max-clocks"),
    cl::sub(profileSub), cl::cat(category));
static cl::opt<unsigned>
    maxClocks("max-clocks",
              cl::desc("profile --adaptive: at most this many clocks"),
              cl::init(8), cl::sub(profileSub), cl::cat(category));
static cl::opt<std::string>
    output("o", cl::desc("file to write: the signature DB, model or report"),
           cl::init("-"), cl::sub(characterizeSub),
           cl::sub(measureCompositeSub), cl::sub(fitSub), cl::sub(mergeSub),
           cl::sub(profileSub), cl::sub(routeSub), cl::sub(validateServingSub),
           cl::sub(servePlanSub), cl::sub(planClocksSub), cl::cat(category));

static int fail(const Twine &msg) {
  WithColor::error(errs(), "energy-prof") << msg << "\n";
  return 1;
}

/// `cuda:<i>` devices: with `kernels` (characterize, measure-composite) the
/// CUDA microbenchmarks run on them (built whenever nvcc was found);
/// otherwise NVML alone (probe, run-plan: no CUDA context on the GPU).
static std::unique_ptr<Device> openDevice(StringRef name, std::string &err,
                                          bool kernels = false) {
  if (name.starts_with_insensitive("sim:")) {
    SimGpu p;
    if (!simGpuForDevice(name.str(), p, err))
      return nullptr;
    auto dev = std::make_unique<SimDevice>(p, seed);
    dev->thermalCoupling = thermal;
    dev->contention = contention;
    dev->cacheResidency = cacheResidency;
    return dev;
  }
  unsigned index;
  StringRef asked = name;
  if (name.consume_front("cuda:") && !name.getAsInteger(10, index)) {
#if ENERGY_CUDA_KERNELS
    if (kernels)
      return openCudaDevice(index, err);
#else
    (void)kernels;
#endif
    unsigned nvml = 0; // cuda:<i> is CUDA's numbering (CUDA_VISIBLE_DEVICES)
    if (!nvmlIndexOfCuda(index, nvml, err))
      return nullptr;
    return openNvmlDevice(nvml, err);
  }
  err = "unknown device '" + asked.str() +
        "'; expected sim:<a100|a40|h100|h200|b200> "
        "or cuda:<index>";
  return nullptr;
}

/// Whether `dev` can run every kernel: simulated devices run any; a GPU
/// runs the CUDA microbenchmarks, named by the key's prefix.
static bool canRunAll(Device &dev, const std::vector<KernelSpec> &kernels,
                      std::string &err) {
  if (dev.simulated())
    return true;
#if ENERGY_CUDA_KERNELS
  for (const KernelSpec &k : kernels)
    if (!cudaCanRun(k, err))
      return false;
  return true;
#else
  err = dev.identity() + ": running kernels needs the CUDA microbenchmarks; "
                         "this energy-prof was built without nvcc";
  return false;
#endif
}

/// Where each cold measured entry is: (key, clock, power limit) -> index.
using EntryIndex = std::map<std::tuple<std::string, int, double>, size_t>;

/// A composite's entry at one operating point: the sequential composition
/// (paper section 2: T, d and their variances add; calculus::seq, with
/// repeatSeq for [key, n]) of its kernels' cold entries measured at that
/// point. False when a part has no entry there.
static bool composeEntry(const CompositeSpec &c,
                         const std::vector<Measurement> &measured,
                         const EntryIndex &index, int smMhz, double powerLimit,
                         Measurement &out) {
  using energy::calculus::Signature;
  std::optional<Signature> total;
  unsigned runsMin = ~0u;
  double temperature = NAN, defaultLimit = 0;
  for (const auto &[part, n] : c.parts) {
    auto it = index.find({part, smMhz, powerLimit});
    if (it == index.end())
      return false;
    const Measurement &m = measured[it->second];
    Signature run = energy::calculus::repeatSeq(
        Signature::measured(m.s, m.T, m.d, m.varT, m.varD,
                            energy::calculus::DeviceSet::single(0)),
        n);
    if (!total) {
      temperature = m.entryTemperature;
      defaultLimit = m.defaultPowerLimit;
    }
    energy::calculus::CompositionError err; // one device: never set
    total = total ? seq(*total, run, err) : run;
    runsMin = std::min(runsMin, m.runs);
  }
  out = Measurement();
  out.key = c.key;
  out.smMhz = smMhz;
  out.s = total->s;
  out.T = total->T;
  out.d = total->d;
  out.varT = total->varT;
  out.varD = total->varD;
  out.runs = runsMin;
  out.l2 = "flushed";
  out.entryTemperature = temperature;
  out.powerLimit = powerLimit;
  out.defaultPowerLimit = defaultLimit;
  out.method = "composed";
  return true;
}

/// A fitting CSV: a header naming `columns` (numbers) and `cell`, then one
/// row per measurement. Errors name the file and line.
struct CsvRow {
  std::vector<double> x;
  std::string cell;
};
/// A column and its domain: at least `lo` (above it when `open`), at most
/// 1e15 (the signature DB's magnitude limit: past it a fit overflows).
struct FitColumn {
  StringRef name;
  double lo;
  bool open;
};
static std::string shortNumber(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}
static bool readFitCsv(ArrayRef<FitColumn> spec, std::vector<CsvRow> &out) {
  SmallVector<StringRef> columns;
  for (const FitColumn &c : spec)
    columns.push_back(c.name);
  energy::formats::CsvTable csv;
  energy::formats::CsvError csvErr;
  if (!energy::formats::readCsv(dataFile, csv, csvErr)) {
    fail(csvErr.str(dataFile));
    return false;
  }
  std::string names = join(columns, ", ");
  std::vector<size_t> col;
  for (StringRef want : columns)
    if (std::optional<size_t> c = csv.column(want))
      col.push_back(*c);
  std::optional<size_t> cc = csv.column("cell");
  if (!cc || col.size() != columns.size()) {
    SmallVector<StringRef> missing;
    for (StringRef want : columns)
      if (!csv.column(want))
        missing.push_back(want);
    if (!cc)
      missing.push_back("cell");
    fail(dataFile + ":" + Twine(csv.headerLine) + ": header needs " + names +
         " and cell; it lacks " + join(missing, ", ") +
         csv.missingColumnHint(missing.front()));
    return false;
  }
  for (size_t row = 0; row < csv.rows.size(); ++row) {
    const std::vector<std::string> &cells = csv.rows[row];
    CsvRow r;
    r.x.resize(columns.size());
    bool ok = true;
    for (size_t i = 0; ok && i < col.size(); ++i) {
      StringRef text = StringRef(cells[col[i]]).trim();
      ok = energy::formats::csvNumber(text, r.x[i]);
      if (!ok) {
        fail(csv.at(dataFile, row, col[i]) + ": expected finite numbers in " +
             names + "; " + spec[i].name + " is " +
             energy::formats::cellForMessage(text));
        return false;
      }
      const FitColumn &c = spec[i];
      if (r.x[i] < c.lo || (c.open && r.x[i] == c.lo) || r.x[i] > 1e15) {
        fail(csv.at(dataFile, row, col[i]) + ": " + c.name + " must lie in " +
             (c.open ? "(" : "[") + shortNumber(c.lo) + ", 1e15]; got " +
             shortNumber(r.x[i]));
        return false;
      }
    }
    r.cell = StringRef(cells[*cc]).trim().str();
    out.push_back(std::move(r));
  }
  // A row repeated exactly is one measurement counted twice (a file
  // concatenated with itself, say): it shrinks the standard errors as if
  // it were an independent run.
  std::set<std::pair<std::vector<double>, std::string>> seen;
  size_t repeats = 0;
  for (const CsvRow &r : out)
    repeats += !seen.insert({r.x, r.cell}).second;
  if (repeats)
    WithColor::warning(errs(), "energy-prof")
        << dataFile << ": " << repeats << " of " << out.size()
        << " rows repeat another exactly; each is fitted as an independent "
           "run, which shrinks the standard errors (remove the copies if "
           "they are one measurement)\n";
  return true;
}

/// Every fifth configuration cell (sorted by name) is held out, as the
/// Token-Energy paper does.
static std::set<std::string> holdoutCells(const std::vector<CsvRow> &rows,
                                          size_t &numCells) {
  std::set<std::string> cellSet;
  for (auto &r : rows)
    cellSet.insert(r.cell);
  std::vector<std::string> cellList(cellSet.begin(), cellSet.end());
  std::set<std::string> holdout;
  for (size_t i = 4; i < cellList.size(); i += 5)
    holdout.insert(cellList[i]);
  numCells = cellList.size();
  return holdout;
}

/// Median and max absolute relative error of held-out cell means (ratio of
/// sums over each cell).
/// A fit's report: on stdout beside a model written to a file, on stderr
/// when the model itself goes to stdout (it stays one JSON document).
static raw_ostream &fitReport() { return output == "-" ? errs() : outs(); }

static void reportHoldout(const std::vector<CsvRow> &rows,
                          const std::set<std::string> &holdout,
                          function_ref<double(const CsvRow &)> predict,
                          size_t energyColumn) {
  std::vector<double> errs;
  for (const std::string &cell : holdout) {
    double meas = 0, pred = 0;
    for (auto &r : rows)
      if (r.cell == cell) {
        meas += r.x[energyColumn];
        pred += predict(r);
      }
    errs.push_back(std::fabs(pred - meas) / std::fabs(meas));
  }
  if (errs.empty()) {
    fitReport() << "held-out cells: none (every fifth cell, sorted by name, "
                   "is held out: give at least 5 cells for a held-out "
                   "check)\n";
    return;
  }
  fitReport() << formatv("held-out cells: {0}; median |error| of cell means "
                         "{1:P2}, max {2:P2}\n",
                         errs.size(), energy::calculus::median(errs),
                         *std::max_element(errs.begin(), errs.end()));
}

/// Writes the command's result to -o (default stdout).
/// -o, whole or not at all (runtime/AtomicFile.h): a failed write leaves
/// the old file intact and exits 1.
static int writeOutput(StringRef text) {
  // A file-size limit (ulimit -f) is an error to report, not a signal that
  // kills the tool mid-write (set here, after LLVM installed its handlers).
  std::signal(SIGXFSZ, SIG_IGN);
  std::string err;
  if (!AtomicFile::writeWhole(output, text.str(), err))
    return fail(err);
  return 0;
}

static int writeJson(json::Object doc) {
  return writeOutput(formatv("{0:2}\n", json::Value(std::move(doc))).str());
}

/// `fit --model token-law`: OLS + HC3 on the training cells.
static int fitTokenLawCmd() {
  using namespace energy::calculus;
  std::vector<CsvRow> rows;
  // Gigabytes moved are never negative; time and energy per token are
  // positive.
  if (!readFitCsv({{"q_w", 0, false},
                   {"q_kv", 0, false},
                   {"tau", 0, true},
                   {"e", 0, true}},
                  rows))
    return 1;
  size_t numCells;
  std::set<std::string> holdout = holdoutCells(rows, numCells);
  std::vector<TokenLawRow> train;
  for (auto &r : rows)
    if (!holdout.count(r.cell))
      train.push_back({r.x[0], r.x[1], r.x[2], r.x[3], r.cell});
  TokenLaw law;
  std::string err;
  if (!fitTokenLaw(train, law, err))
    return fail(dataFile + ": " + err);
  const char *names[4] = {"alpha (J/GB)", "beta (J/GB)", "P_tau (W)", "c (J)"};
  fitReport() << "token-law fit on " << train.size() << " rows ("
              << numCells - holdout.size() << " cells), HC3 standard errors:\n";
  for (int i = 0; i < 4; ++i)
    fitReport() << formatv("  {0,-13} {1,12:e4}  +- {2:e2}\n", names[i],
                           law.coef[i], law.standardError(i));
  reportHoldout(
      rows, holdout,
      [&](const CsvRow &r) { return law.predict(r.x[0], r.x[1], r.x[2]); }, 3);
  // Physical signs (docs/MODELS.md): energy per GB moved and the power
  // drawn while decoding are never negative; a negative fit says the data
  // does not pin the coefficient down (or is not dense decode).
  for (int i = 0; i < 4; ++i)
    if (!std::isfinite(law.coef[i]))
      return fail(dataFile + ": the token-law fit is not finite (" + names[i] +
                  "): the rows do not determine it");
  for (int i = 0; i < 3; ++i)
    if (law.coef[i] < 0)
      WithColor::warning(errs(), "energy-prof")
          << names[i] << " fitted negative (" << formatv("{0:e3}", law.coef[i])
          << "); the data does not determine it -- check the runs\n";
  // P_tau is the power drawn while decoding: a GPU server's tens to
  // thousands of watts (8 x 1,000 W at most today). Far outside, the units
  // are not the law's (e in J per token, tau in s per token).
  if (law.coef[2] > 1e4 || (law.coef[2] > 0 && law.coef[2] < 1))
    WithColor::warning(errs(), "energy-prof")
        << "P_tau fitted " << formatv("{0:e3}", law.coef[2])
        << " W, not the power of a GPU server: are e in J per output token "
           "(not mJ) and tau in s per output token (not ms)?\n";
  return writeJson(energy::formats::tokenLawModelJson(law));
}

/// `fit --model energylens`: bounded nonlinear least squares (EnergyLens
/// Eq. 4) on the training cells, Jacobian covariance.
static int fitEnergyLensCmd() {
  using namespace energy::calculus;
  std::vector<CsvRow> rows;
  if (!readFitCsv({{"input_tokens", 0, false},
                   {"max_tokens", 1, false},
                   {"batch", 1, false},
                   {"tp", 1, false},
                   {"pp", 1, false},
                   {"e", 0, true}},
                  rows))
    return 1;
  auto toRow = [](const CsvRow &r) {
    return EnergyLensRow{r.x[0], r.x[1], r.x[2], r.x[3],
                         r.x[4], r.x[5], r.cell};
  };
  size_t numCells;
  std::set<std::string> holdout = holdoutCells(rows, numCells);
  std::vector<EnergyLensRow> train;
  for (auto &r : rows)
    if (!holdout.count(r.cell))
      train.push_back(toRow(r));
  EnergyLens m;
  std::string err;
  if (!fitEnergyLens(train, m, err))
    return fail(dataFile + ": " + err);
  fitReport() << "energylens fit on " << train.size() << " rows ("
              << numCells - holdout.size() << " cells), RMS relative residual "
              << formatv("{0:P2}", m.rmsRelative)
              << ", Jacobian standard errors:\n";
  std::vector<std::string> unidentified;
  for (int i = 0; i < EnergyLens::kParams; ++i) {
    if (m.identified(i)) {
      fitReport() << formatv("  {0,-9} {1,12:e4}  +- {2:e2}\n",
                             EnergyLens::kNames[i], m.phi[size_t(i)],
                             m.standardError(i));
      continue;
    }
    fitReport() << formatv("  {0,-9} {1,12:e4}  not identified by these rows\n",
                           EnergyLens::kNames[i], m.phi[size_t(i)]);
    unidentified.push_back(EnergyLens::kNames[i]);
  }
  if (!unidentified.empty())
    WithColor::warning(errs(), "energy-prof")
        << "fit: the rows do not determine " << llvm::join(unidentified, ", ")
        << " (no row moves them: e.g. tp = pp = 1 in every row): their "
           "values are the fit's start; the model prices only what the rows "
           "identify (--energy-fill-signatures refuses a task that needs "
           "them)\n";
  reportHoldout(
      rows, holdout, [&](const CsvRow &r) { return m.predict(toRow(r)); }, 5);
  for (int i = 0; i < EnergyLens::kParams; ++i)
    if (!std::isfinite(m.phi[size_t(i)]))
      return fail(dataFile + ": the energylens fit is not finite (" +
                  EnergyLens::kNames[i] + "): the rows do not determine it");
  return writeJson(energy::formats::energyLensModelJson(m));
}

/// `fit --model flop-byte --base FILE`: joules_per_flop and joules_per_byte
/// by OLS through the origin on measured prefill and decode steps (their
/// dynamic energy), HC3 covariance; the base file's structure is kept.
static int fitFlopByteCmd() {
  using namespace energy::calculus;
  if (baseModel.empty())
    return fail("fit --model flop-byte needs --base MODEL.json: the model's "
                "structure (parameters, attention_flops_per_pair, "
                "weight_bytes, kv_bytes_per_token, memory_factor), which "
                "turns each step into FLOPs and bytes");
  energy::formats::ModelFile mf;
  std::string err;
  std::unique_ptr<MemoryBuffer> buf =
      energy::formats::readInput(baseModel, err);
  if (!buf)
    return fail(baseModel + ": " + err);
  if (!energy::formats::parseModelFile(buf->getBuffer(), baseModel, mf, err))
    return fail(err);
  if (mf.kind != "flop-byte")
    return fail(baseModel + ": a '" + mf.kind +
                "' model; --base takes a flop-byte one");
  std::vector<CsvRow> rows;
  if (!readFitCsv({{"tokens", 0, false},
                   {"token_squares", 0, false},
                   {"batch", 0, false},
                   {"history", 0, false},
                   {"d", 0, true}},
                  rows))
    return 1;
  // A row is a prefill (tokens, token_squares; batch = history = 0) or a
  // decode iteration (batch, history; tokens = token_squares = 0).
  std::vector<FlopByteRow> all;
  for (size_t i = 0; i < rows.size(); ++i) {
    const CsvRow &r = rows[i];
    bool prefill = r.x[0] > 0, decode = r.x[2] > 0;
    if (prefill == decode || (prefill && (r.x[2] || r.x[3])) ||
        (decode && (r.x[0] || r.x[1])))
      return fail(dataFile + ": row " + Twine(i + 1) + " (cell " +
                  energy::formats::cellForMessage(r.cell) +
                  "): a step is a prefill (tokens > 0, batch = history = "
                  "0) or a decode iteration (batch > 0, tokens = "
                  "token_squares = 0)");
    all.push_back({decode, decode ? r.x[2] : r.x[0], decode ? r.x[3] : r.x[1],
                   r.x[4], r.cell});
  }
  size_t numCells;
  std::set<std::string> holdout = holdoutCells(rows, numCells);
  std::vector<FlopByteRow> train;
  for (const FlopByteRow &r : all)
    if (!holdout.count(r.cell))
      train.push_back(r);
  FlopByteFit f;
  if (!fitFlopByte(mf.fb, train, f, err))
    return fail(dataFile + ": " + err);
  fitReport() << "flop-byte fit on " << train.size() << " steps ("
              << numCells - holdout.size() << " cells), HC3 standard errors:\n"
              << formatv("  joules_per_flop {0,12:e4}  +- {1:e2}\n",
                         f.joulesPerFlop, std::sqrt(std::max(0.0, f.cov[0])))
              << formatv("  joules_per_byte {0,12:e4}  +- {1:e2}\n",
                         f.joulesPerByte, std::sqrt(std::max(0.0, f.cov[3])))
              << formatv(
                     "  relative_sigma  {0,12:e4}  (a step's own deviation)\n",
                     f.relSigma);
  energy::calculus::FlopByteModel fitted = mf.fb;
  fitted.joulesPerFlop = f.joulesPerFlop;
  fitted.joulesPerByte = f.joulesPerByte;
  reportHoldout(
      rows, holdout,
      [&](const CsvRow &r) {
        bool decode = r.x[2] > 0;
        FlopByteEnergy e = decode ? decodeEnergy(fitted, r.x[2], r.x[3])
                                  : prefillEnergy(fitted, r.x[0], r.x[1]);
        return e.total();
      },
      4);
  // Physical signs: energy per FLOP and per byte are positive; a fit
  // at or below 0 says the steps do not pin it down.
  for (auto [name, v] :
       {std::pair<const char *, double>{"joules_per_flop", f.joulesPerFlop},
        {"joules_per_byte", f.joulesPerByte}})
    if (!std::isfinite(v) || v <= 0)
      return fail(dataFile + ": " + name + " fitted " +
                  formatv("{0:e3}", v).str() +
                  ": not an energy per unit; the steps do not determine it "
                  "(vary the tokens, batch and history)");
  // The base file with its coefficients replaced: structure and clocks
  // as given.
  Expected<json::Value> doc = json::parse(buf->getBuffer());
  if (!doc)
    return fail(baseModel + ": " + toString(doc.takeError()));
  return writeJson(
      energy::formats::flopByteFitModelJson(std::move(*doc->getAsObject()), f));
}

static int fit() {
  if (dataFile.empty())
    return fail("fit needs --data CSV (token-law: q_w,q_kv,tau,e,cell; "
                "energylens: input_tokens,max_tokens,batch,tp,pp,e,cell; "
                "flop-byte: tokens,token_squares,batch,history,d,cell)");
  if (modelName == "token-law")
    return fitTokenLawCmd();
  if (modelName == "energylens")
    return fitEnergyLensCmd();
  if (modelName == "flop-byte")
    return fitFlopByteCmd();
  return fail("unknown --model '" + modelName +
              "'; expected token-law, energylens or flop-byte");
}

/// The operating points (clock, power limit or 0) of a profile DB every
/// region ran at as many times as at the point where it ran most; the
/// others are said (`what`: the command): a job that ends within a clock's
/// (or limit's) iterations leaves its signatures on fewer runs, some
/// regions on none.
using ProfilePoint = std::pair<int64_t, double>;
static std::set<ProfilePoint> fullyCoveredClocks(const SignatureDb &db,
                                                 StringRef what) {
  std::map<std::string, int64_t> mostRuns;
  std::map<ProfilePoint, std::map<std::string, int64_t>> runsAt;
  for (const DbEntry &e : db.entries) {
    mostRuns[e.key] = std::max(mostRuns[e.key], e.runs);
    runsAt[{e.smMhz, e.powerLimit.value_or(0)}][e.key] = e.runs;
  }
  std::set<ProfilePoint> full;
  std::vector<std::string> short_;
  for (const auto &[point, runsOf] : runsAt) {
    std::vector<std::string> fewer;
    for (const auto &[key, most] : mostRuns) {
      auto it = runsOf.find(key);
      int64_t n = it == runsOf.end() ? 0 : it->second;
      if (n < most)
        fewer.push_back(key + " " + std::to_string(n) + " of " +
                        std::to_string(most) + " runs");
    }
    if (fewer.empty()) {
      full.insert(point);
      continue;
    }
    if (fewer.size() > 3)
      fewer.resize(3), fewer.push_back("...");
    std::string at = std::to_string(point.first) + " MHz";
    if (point.second > 0) {
      char buf[48];
      std::snprintf(buf, sizeof buf, " under %g W", point.second);
      at += buf;
    }
    short_.push_back(at + " (" + llvm::join(fewer, ", ") + ")");
  }
  // One clock only (a characterization, not a sweep): nothing to compare.
  if (!short_.empty() && runsAt.size() > 1)
    WithColor::warning(errs(), "energy-prof")
        << what << ": the regions ran fewer times at "
        << llvm::join(short_, "; ")
        << " than where they ran most (a job that ended within a clock's or "
           "limit's iterations): their signatures there rest on fewer runs\n";
  return full;
}

/// Pooling's notes as warnings, at most 10 of them: hundreds of keys that
/// differ by rank would bury the rest of the output (the DB says it all).
static void printNotes(const std::vector<std::string> &notes,
                       const char *what) {
  const size_t kShown = 10;
  for (size_t i = 0; i < notes.size() && i < kShown; ++i)
    errs() << "energy-prof: warning: " << what << ": " << notes[i] << "\n";
  if (notes.size() > kShown)
    errs() << "energy-prof: warning: " << what << ": ... and "
           << notes.size() - kShown << " more such notes\n";
}

/// `merge shard0.json shard1.json ... -o db.json`: pools per-rank shards
/// (runtime/db: run-weighted means, exact pooled variance).
static int merge() {
  if (positionalFiles().empty())
    return fail("merge needs at least one shard file");
  std::vector<SignatureDb> shards(positionalFiles().size());
  std::vector<std::string> names(positionalFiles().begin(),
                                 positionalFiles().end());
  std::string err;
  for (size_t i = 0; i < names.size(); ++i)
    if (!readSignatureDb(names[i], shards[i], err))
      return fail(err);
  SignatureDb merged;
  std::vector<std::string> notes;
  if (!poolSignatureDbs(shards, names, merged, err, &notes))
    return fail(err);
  printNotes(notes, "merge");
  if (merged.entries.empty())
    return fail("the shards hold no entry (no region was measured): "
                "nothing to merge, nothing written");
  fullyCoveredClocks(merged, "merge");
  merged.generator =
      energy::generatorJson("energy-prof merge", names, merged.sources);
  if (int rc = writeOutput(writeSignatureDb(merged)))
    return rc;
  errs() << "merged " << names.size() << " shards into "
         << merged.entries.size() << " entries (device: " << merged.device
         << ")\n";
  return 0;
}

/// `measure-composite --sequence a,b,c --name N`: runs the kernels back to
/// back as one composite (the protocol's null context, static power and
/// aligned counter windows) and writes the measurement in the format
/// `--energy-check-deviation="measured=..."` reads: mean energy per
/// repetition and the standard error of that mean.
static int measureComposite(Device &dev) {
  if (sequence.empty() == concurrent.empty() || compositeName.empty())
    return fail("measure-composite needs --name and one of --sequence and "
                "--concurrent");
  std::vector<KernelSpec> kernels, seq;
  std::vector<CompositeSpec> composites;
  std::string err;
  if (!readKernels(kernelsFile, kernels, &composites, err))
    return fail(err);
  if (!canRunAll(dev, kernels, err))
    return fail(err);
  bool parallel = !concurrent.empty();
  // A composite in --sequence runs as its kernels, back to back (what its
  // composed DB entry predicts); up to 10^5 kernels per repetition.
  const size_t maxKernels = 100000;
  auto kernel = [&](const std::string &key) {
    return llvm::find_if(kernels,
                         [&](const KernelSpec &k) { return k.key == key; });
  };
  for (const std::string &key : parallel ? concurrent : sequence) {
    auto comp = llvm::find_if(
        composites, [&](const CompositeSpec &c) { return c.key == key; });
    if (!parallel && comp != composites.end()) {
      for (const auto &[part, n] : comp->parts) {
        if (seq.size() + n > maxKernels)
          return fail("--sequence expands to more than " +
                      std::to_string(maxKernels) + " kernels");
        seq.insert(seq.end(), n, *kernel(part));
      }
      continue;
    }
    auto it = kernel(key);
    if (it == kernels.end())
      return fail(std::string(parallel ? "--concurrent" : "--sequence") +
                  " names '" + key + "', which " + kernelsFile +
                  (comp != composites.end()
                       ? " defines as a composite (only --sequence expands "
                         "composites)"
                       : " does not define"));
    seq.push_back(*it);
  }
  ProtocolOptions opts;
  opts.runs = runs;
  double E = 0, varE = 0;
  if (!(parallel ? measureConcurrent(dev, seq, opts, E, varE, err)
                 : measureSequence(dev, seq, opts, E, varE, err)))
    return fail(err);
  return writeJson(energy::formats::compositeMeasurementJson(
      compositeName, E, std::sqrt(varE / runs), int64_t(runs), dev.identity()));
}

/// The plan file named by the first positional argument (`--schedule`
/// picks one of several).
static bool readPlan(Plan &plan, std::string &err) {
  std::unique_ptr<MemoryBuffer> buf =
      energy::formats::readInput(positionalFiles()[0], err);
  if (!buf) {
    err = positionalFiles()[0] + ": " + err;
    return false;
  }
  return parsePlan(buf->getBuffer().str(), positionalFiles()[0], planSchedule,
                   plan, err);
}

/// run-plan: one device per plan device. `--device` is a list with one
/// entry per plan device, or one entry for all: `cuda` (cuda:0, cuda:1, ...
/// in plan order) or a simulated kind (a separate instance each).
static int runPlanCommand(std::vector<std::string> child) {
  if (positionalFiles().size() != 1)
    return fail("run-plan needs exactly one plan file before '--'");
  if (deviceName.empty())
    return fail("run-plan needs --device (cuda, cuda:0,cuda:1,... or "
                "sim:<kind>)");
  Plan plan;
  std::string err;
  if (!readPlan(plan, err))
    return fail(err);
  RunPlanOptions opts;
  if (planMode == "lock")
    opts.mode = RunPlanOptions::Mode::Lock;
  else if (planMode == "timeline")
    opts.mode = RunPlanOptions::Mode::Timeline;
  else if (!planMode.empty())
    return fail("--mode must be lock or timeline, not '" + planMode + "'");
  if (!(startDelay >= 0))
    return fail("--start-delay must be non-negative");
  opts.allowChanges = allowClockChanges;
  opts.dryRun = dryRun;
  opts.startDelay = startDelay;
  opts.iterations = planIterations;
  opts.command = std::move(child);

  SmallVector<StringRef> names;
  StringRef(deviceName).split(names, ',');
  size_t n = plan.devices.size();
  if (names.size() != 1 && names.size() != n)
    return fail("--device lists " + std::to_string(names.size()) +
                " devices; the plan has " + std::to_string(n));
  std::vector<std::unique_ptr<Device>> owned;
  std::vector<Device *> devices;
  for (size_t i = 0; i < n; ++i) {
    std::string name = names.size() == 1 ? names[0].str() : names[i].str();
    if (name == "cuda")
      name = "cuda:" + std::to_string(i);
    std::unique_ptr<Device> dev = openDevice(name, err);
    if (!dev)
      return fail("device '" + plan.devices[i].name + "': " + err);
    if (auto *sim = dynamic_cast<SimDevice *>(dev.get());
        sim && !simState.empty()) {
      sim->clockStateFile = simState + "." + plan.devices[i].name + ".clock";
      sim->powerLimitStateFile =
          simState + "." + plan.devices[i].name + ".power";
      std::string ignored;
      sim->resetSmClock(ignored); // publish the starting state
      sim->resetPowerLimit(ignored);
    }
    devices.push_back(dev.get());
    owned.push_back(std::move(dev));
  }
  // A simulated device is this command's own: the job's processes open
  // theirs (ENERGY_RT_DEVICE) and never see these clocks.
  if (!opts.dryRun && !opts.command.empty())
    for (Device *dev : devices)
      if (dev->simulated()) {
        errs() << "energy-prof: warning: run-plan: " << dev->identity()
               << " is this command's own simulated device: the command's "
                  "processes simulate their own devices, which this plan "
                  "does not reach; to follow it in a simulated job, load it "
                  "in the process (energy-prof plan-clocks, then "
                  "energy_rt.load_plan or er_plan_load: docs/PLAN.md)\n";
        break;
      }
  int rc = runPlan(plan, devices, opts, errs(), err);
  if (rc < 0)
    return fail(err);
  return rc;
}

/// plan-clocks: one device's planned clock per task, as the C API's
/// er_plan_load reads them ("-" for a task the plan leaves at the clock in
/// force).
static int planClocksCommand() {
  if (positionalFiles().size() != 1)
    return fail("plan-clocks needs exactly one plan file");
  Plan plan;
  std::string err;
  if (!readPlan(plan, err))
    return fail(err);
  std::string names;
  for (const PlanDevice &d : plan.devices) {
    names += (names.empty() ? "" : ", ") + d.name;
    if (d.name != planDevice)
      continue;
    std::string text = "# " + plan.schedule + " on " + d.name +
                       ": task sm_mhz (energy-prof plan-clocks)\n";
    // The kind it was planned for: er_plan_load warns on another GPU.
    if (!d.kind.empty())
      text += "# kind " + d.kind + "\n";
    // A plan made with --energy-power-cap: the device's limit for the whole
    // job, set by er_plan_load (a line would otherwise be lost here).
    if (d.powerCapW) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "# power_cap_W %.17g\n", *d.powerCapW);
      text += buf;
    }
    // Every task, "-" where the plan keeps the clock in force: a region
    // that runs and is not here is not the planned job's (er_plan_load
    // warns at exit).
    text += "# every task of " + d.name +
            ": its clock, or - to keep the "
            "clock in force\n";
    // --by-key: a trace's region task (--import-kineto --regions) is its
    // region's begin the trace numbered (its ranges of that name, those
    // that ran no kernel counted); a task filled from DB entry KEY is the
    // region KEY's k-th begin in the iteration (its k-th task of that key
    // in start order, as the device runs them); a task without either
    // keeps its name.
    // A line is "name sm_mhz", '#' starts a comment: a name with
    // whitespace, '#' or a control character would be read back as another
    // line, a comment or an error.
    std::map<std::string, unsigned> seen;
    std::set<std::string> written;
    std::map<std::string, std::set<int64_t>> numbered; // region -> begins
    // A trace's plan with regions: its other tasks (kernels outside every
    // region, collectives) are no region of the job, whose begins would
    // never come (er_plan_load would say so at every exit): left out.
    bool traceRegions =
        planByKey && (!d.regionBegins.empty() ||
                      llvm::any_of(d.taskRegions, [](const auto &reg) {
                        return !reg.first.empty();
                      }));
    size_t noRegion = 0;
    for (size_t t = 0; t < d.taskClocks.size(); ++t) {
      std::string task = d.taskClocks[t].first;
      const std::optional<int> &mhz = d.taskClocks[t].second;
      const std::string &key = d.taskKeys[t];
      const auto &[region, occurrence] = d.taskRegions[t];
      if (traceRegions && region.empty() && key.empty()) {
        ++noRegion;
        continue;
      }
      if (planByKey && !region.empty()) {
        task = region + "[" + std::to_string(occurrence) + "]";
        numbered[region].insert(occurrence);
      } else if (planByKey && !key.empty())
        task = key + "[" + std::to_string(seen[key]++) + "]";
      // A task named like another's KEY[k] would give one begin two lines.
      if (!written.insert(task).second)
        return fail("task '" + d.taskClocks[t].first + "' of " + d.name +
                    " is written as '" + task +
                    "', which another task of it already is: rename it");
      // A task's name that cannot be a line is refused, not written.
      if (!clockPlanLineName(task)) {
        std::string shown;
        llvm::raw_string_ostream os(shown);
        os.write_escaped(task);
        if (planByKey && (!key.empty() || !region.empty()))
          return fail("task '" + d.taskClocks[t].first + "' of " + d.name +
                      ": its " + (region.empty() ? "DB key" : "region") +
                      " \"" + shown +
                      "\" cannot be a line of a clock plan (\"name "
                      "sm_mhz\", '#' a comment): it holds whitespace, '#' or "
                      "a control character " +
                      (region.empty() ? "(a kernel's signature: no region "
                                        "of a job); write the plan without "
                                        "--by-key"
                                      : "(the job names its region so: "
                                        "rename it in the job, "
                                        "record_function or energy_rt."
                                        "region, and trace it again; "
                                        "without --by-key the lines name "
                                        "the trace's events, which no "
                                        "region of the job is)"));
        return fail("task \"" + shown + "\" of " + d.name +
                    " cannot be a line of a clock plan (\"name sm_mhz\", '#' "
                    "a comment): its name holds whitespace, '#' or a control "
                    "character; name the task, and the region it runs as, "
                    "without them");
      }
      text += task + " " + (mhz ? std::to_string(*mhz) : "-") + "\n";
    }
    if (noRegion)
      text += "# " + std::to_string(noRegion) +
              " task(s) of the trace outside every region (kernels, "
              "collectives) left out: no region of the job runs them\n";
    // A region's begins the trace holds no task for (its range ran no
    // kernel of the device, or only collectives): kept at the clock in
    // force, so that the job's begins of it are the plan's.
    for (const auto &[region, ks] : numbered) {
      // Up to the region's last begin in the iteration where the plan says
      // how many it has, else to its last with a task.
      auto said = d.regionBegins.find(region);
      int64_t n = said != d.regionBegins.end()
                      ? std::max(said->second, *ks.rbegin() + 1)
                      : *ks.rbegin() + 1;
      for (int64_t k = 0; k < n; ++k)
        if (!ks.count(k) &&
            written.insert(region + "[" + std::to_string(k) + "]").second)
          text += region + "[" + std::to_string(k) + "] -\n";
    }
    // A region that ran no GPU work at all (no task): each of its begins
    // keeps the clock in force. One whose name cannot be a line (below)
    // is left out, said: it has no clock of the plan's to lose.
    size_t unwritable = 0;
    if (planByKey)
      for (const auto &[region, n] : d.regionBegins) {
        if (numbered.count(region))
          continue;
        if (!clockPlanLineName(region)) {
          ++unwritable;
          continue;
        }
        for (int64_t k = 0; k < n; ++k)
          if (written.insert(region + "[" + std::to_string(k) + "]").second)
            text += region + "[" + std::to_string(k) + "] -\n";
      }
    if (unwritable)
      text += "# " + std::to_string(unwritable) +
              " region(s) without a task left out: their names hold "
              "whitespace, '#' or a control character, which a line cannot\n";
    if (planByKey && seen.empty() && numbered.empty() && d.regionBegins.empty())
      errs() << "energy-prof: warning: plan-clocks --by-key: no task of "
             << d.name
             << " has a DB key or a trace's region (no db_key or region in "
                "the plan; a Perseus stage profile gets keys with "
                "energy-translate --import-stage-profile ... --stage-keys): "
                "the lines name the tasks\n";
    return writeOutput(text);
  }
  if (planDevice.empty())
    return fail("plan-clocks needs --plan-device, one of: " + names);
  return fail("no device '" + planDevice +
              "' in the plan; its devices: " + names);
}

/// `profile [--clocks a,b | --all-clocks [--clock-stride K]]
/// [--iterations-per-clock N] [--warmup W] [--device D]
/// --allow-clock-changes -o db.json -- CMD ...`: runs CMD (every rank of a
/// torchrun / Slurm / MPI job it launches) with the runtime's in-process
/// profiling on (runtime/include/energy_rt.h: the job marks iterations with
/// er_step / energy_rt.step), each rank's shard flushed at its exit, then
/// pools the shards into one DB. The command's exit status is returned when
/// it fails.
/// A clock listed twice would be measured twice and written as two DB
/// entries at one clock, which the DB's readers refuse.
static bool clocksRepeat() {
  std::set<int> seen;
  for (int c : clocks)
    if (!seen.insert(c).second) {
      fail("--clocks lists " + std::to_string(c) + " MHz twice");
      return true;
    }
  // A limit twice would write two entries at each clock under one limit,
  // which --energy-fill-signatures refuses: refused here, before the sweep.
  std::set<double> limits;
  for (double w : powerLimitsW)
    if (!limits.insert(w).second) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "--power-limits lists %g W twice", w);
      fail(buf);
      return true;
    }
  return false;
}

/// The profiled command's pid while it runs. SIGINT, SIGTERM and SIGHUP
/// sent to energy-prof by another process are passed on to it (its ranks
/// flush their shards as they exit, and energy-prof pools them after);
/// one from the terminal (Ctrl-C) reached the whole foreground process
/// group, the command included, and is not sent twice.
static volatile sig_atomic_t profiledChild = 0;
extern "C" void forwardToProfiled(int sig, siginfo_t *info, void *) {
  if (profiledChild > 0 && !(info && info->si_code == SI_KERNEL))
    ::kill(pid_t(profiledChild), sig);
}

static int profileCommand(std::vector<std::string> cmd) {
  if (cmd.empty())
    return fail("profile needs the job's command after '--'");
  if (clocksRepeat())
    return 1;
  if (!allowClockChanges)
    return fail("profile changes SM clocks or the power limit: add "
                "--allow-clock-changes to "
                "allow it (restored after the sweep, at exit and on fatal "
                "signals)");
  bool adaptive = adaptiveClocks;
  bool limits = !powerLimitsW.empty();
  // --power-limits with --clocks or --all-clocks: every limit with every
  // clock under it (for --energy-plan="choose-power-cap=true").
  bool grid = limits && (allClocks || !clocks.empty()) && !adaptive;
  int sweeps = int(allClocks) + int(!clocks.empty()) + int(adaptive) +
               int(limits) - int(grid);
  if (sweeps > 1) {
    SmallVector<StringRef> given;
    if (!clocks.empty())
      given.push_back("--clocks");
    if (allClocks)
      given.push_back("--all-clocks");
    if (adaptive)
      given.push_back("--adaptive");
    if (limits)
      given.push_back("--power-limits");
    return fail("profile takes one of --clocks a,b,..., --all-clocks, "
                "--adaptive and --power-limits a,b,... (limits are swept at "
                "the default clock, or with --clocks or --all-clocks at each "
                "of those), not " +
                llvm::join(given, " and "));
  }
  if (sweeps != 1)
    return fail("profile needs one of --clocks a,b,..., --all-clocks, "
                "--adaptive or --power-limits a,b,...");
  if (iterationsPerClock < 1)
    return fail("--iterations-per-clock must be at least 1");
  // The runtime takes counts up to a million from the job's environment:
  // checked here, before the job starts, not in every rank after it did.
  if (iterationsPerClock > 1000000 || warmupIterations > 1000000)
    return fail("--iterations-per-clock and --warmup take at most 1000000 "
                "iterations each; got " +
                Twine(iterationsPerClock) + " and " + Twine(warmupIterations));
  if (iterationsPerClock == 1)
    errs() << "energy-prof: warning: --iterations-per-clock 1: one run per "
              "region and clock has no variance, so the DB's sigmas are 0 "
              "(a region run several times per iteration still has one)\n";
  // Options of another sweep are mistakes, not ignored.
  if (maxClocks.getNumOccurrences() && !adaptive)
    return fail("--max-clocks is --adaptive's budget; with --clocks, "
                "--all-clocks or --power-limits the sweep is the list given");
  if (settleIterations.getNumOccurrences() && !limits)
    return fail("--settle-iterations is --power-limits' (a clock holds from "
                "when it is set)");
  if (settleIterations > 1000000)
    return fail("--settle-iterations takes at most 1000000 iterations");
  if (clockStride.getNumOccurrences() && !allClocks)
    return fail("--clock-stride thins --all-clocks; with --clocks, "
                "--adaptive or --power-limits it has no meaning");
  if (adaptive && maxClocks < 2)
    return fail("--max-clocks must be at least 2 (the adaptive sweep starts "
                "at the highest clock and needs one more to compare)");
  // What can be checked before the job runs is checked first: the device
  // (a simulated one here; each rank opens a CUDA device itself), the
  // clocks against it, and that -o can be written. No device (or "cuda"):
  // each rank measures its own GPU (energy_rt's Monitor: the one GPU it is
  // shown, else LOCAL_RANK's), so ENERGY_RT_DEVICE is left unset.
  std::string name = deviceName;
  // What the errors call it: the flag or the variable it came from.
  std::string given = "--device";
  if (name.empty())
    if (const char *env = std::getenv("ENERGY_RT_DEVICE")) {
      name = env;
      given = "ENERGY_RT_DEVICE=";
    }
  if (StringRef(name).equals_insensitive("cuda"))
    name.clear();
  auto named = [&] {
    return given == "--device" ? "--device " + name : given + name;
  };
  std::unique_ptr<Device> checked;
  // A CUDA device each rank opens itself: its name is checked here, its
  // driver by the ranks.
  if (StringRef cuda = name; cuda.consume_front("cuda:")) {
    if (cuda.empty() || !llvm::all_of(cuda, llvm::isDigit))
      return fail(named() +
                  ": a CUDA device is cuda:<index> (cuda:0, cuda:1, ...)");
  } else if (!name.empty() &&
             !StringRef(name).starts_with_insensitive("sim:")) {
    return fail(named() +
                ": not a device name; give cuda:<index> (or cuda, each rank "
                "its own GPU) or a simulated one (sim:a100, sim:a40, "
                "sim:h100, sim:h200, sim:b200)");
  }
  if (StringRef(name).starts_with_insensitive("sim:")) {
    std::string why;
    checked = openDevice(name, why);
    if (!checked)
      return fail(why);
    std::vector<int> supported = checked->supportedSmClocks();
    if (adaptive && size_t(maxClocks) > supported.size())
      return fail("--max-clocks " + Twine(unsigned(maxClocks)) + ": " +
                  checked->identity() + " has " + Twine(supported.size()) +
                  " clocks");
    for (int c : clocks)
      if (!std::count(supported.begin(), supported.end(), c))
        return fail("--clocks: " + Twine(c) +
                    " MHz is not a supported SM "
                    "clock of " +
                    checked->identity() + "; it supports " +
                    describeClocks(supported));
    PowerLimits lim;
    if (limits && !checked->powerLimits(lim, why))
      return fail(why);
    for (double w : powerLimitsW)
      if (!(w >= lim.minW && w <= lim.maxW)) {
        char buf[160];
        std::snprintf(buf, sizeof buf,
                      "--power-limits: %g W is outside the range of %s "
                      "[%g, %g] W",
                      w, checked->identity().c_str(), lim.minW, lim.maxW);
        return fail(buf);
      }
  }
  if (std::string why; !AtomicFile::checkWritable(output, why))
    return fail(why);
  std::string clockList, limitList;
  if (allClocks)
    clockList =
        clockStride > 1 ? "every:" + std::to_string(clockStride) : "all";
  if (adaptive)
    clockList = "adaptive:" + std::to_string(maxClocks);
  for (int c : clocks)
    clockList += (clockList.empty() ? "" : ",") + std::to_string(c);
  for (double w : powerLimitsW) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", w);
    limitList += (limitList.empty() ? "" : ",") + std::string(buf);
  }
  // What the messages call the sweep.
  std::string list = grid     ? limitList + " W x " + clockList + " MHz"
                     : limits ? limitList
                              : clockList;
  char dirTemplate[] = "/tmp/energy-prof-profile.XXXXXX";
  if (!::mkdtemp(dirTemplate))
    return fail(std::string("cannot create a shard directory: ") +
                std::strerror(errno));
  std::string dir = dirTemplate;
  ::setenv("ENERGY_RT_ALLOW_CLOCK_CHANGES", "1", 1);
  // The sweep's variables; another's, left in the environment, would be
  // part of it.
  for (auto [var, value] : {std::pair<const char *, std::string *>{
                                "ENERGY_RT_PROFILE_CLOCKS", &clockList},
                            {"ENERGY_RT_PROFILE_POWER_LIMITS", &limitList}})
    if (value->empty())
      ::unsetenv(var);
    else
      ::setenv(var, value->c_str(), 1);
  if (limits)
    ::setenv("ENERGY_RT_PROFILE_SETTLE",
             std::to_string(settleIterations).c_str(), 1);
  else
    ::unsetenv("ENERGY_RT_PROFILE_SETTLE");
  ::setenv("ENERGY_RT_PROFILE_ITERATIONS",
           std::to_string(iterationsPerClock).c_str(), 1);
  ::setenv("ENERGY_RT_PROFILE_WARMUP", std::to_string(warmupIterations).c_str(),
           1);
  ::setenv("ENERGY_RT_FLUSH_AT_EXIT", (dir + "/shard-%r.json").c_str(), 1);
  // Adaptive choices of a job of several ranks meet here (runtime/CApi.cpp,
  // jobEnergyAtLastClock): every rank runs the clock the job's energy says.
  std::string syncDir = dir + "/adaptive";
  if (::mkdir(syncDir.c_str(), 0700) != 0)
    return fail("cannot create " + syncDir + ": " + std::strerror(errno));
  ::setenv("ENERGY_RT_PROFILE_SYNC_DIR", syncDir.c_str(), 1);
  if (name.empty())
    ::unsetenv("ENERGY_RT_DEVICE");
  else
    ::setenv("ENERGY_RT_DEVICE", name.c_str(), 1);
  std::vector<char *> argv;
  for (std::string &a : cmd)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  // Signals are passed on from before the fork (one that arrives between
  // the fork and the wait must not kill energy-prof and lose the shards),
  // and blocked across it: one that arrives before the child's pid is
  // known waits, and is passed on once it is.
  constexpr int forwarded[] = {SIGINT, SIGTERM, SIGHUP};
  struct sigaction previous[std::size(forwarded)];
  sigset_t block, unblocked;
  sigemptyset(&block);
  for (int sig : forwarded)
    sigaddset(&block, sig);
  sigprocmask(SIG_BLOCK, &block, &unblocked);
  {
    struct sigaction sa = {};
    sa.sa_sigaction = forwardToProfiled;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    // A signal the caller ignores (nohup) stays ignored.
    for (size_t i = 0; i < std::size(forwarded); ++i)
      if (sigaction(forwarded[i], nullptr, &previous[i]) == 0 &&
          previous[i].sa_handler != SIG_IGN)
        sigaction(forwarded[i], &sa, nullptr);
  }
  // The DB to standard output (no -o): the job's own output goes to
  // standard error, so what a pipe reads is the DB alone.
  bool dbOnStdout = output.empty() || output == "-";
  if (dbOnStdout)
    std::fprintf(stderr, "energy-prof profile: the signature DB goes to "
                         "standard output, so the job's standard output goes "
                         "to standard error (-o FILE writes the DB there)\n");
  std::fflush(stdout);
  pid_t pid = ::fork();
  if (pid == 0) {
    for (size_t i = 0; i < std::size(forwarded); ++i)
      sigaction(forwarded[i], &previous[i], nullptr);
    sigprocmask(SIG_SETMASK, &unblocked, nullptr);
    if (dbOnStdout && ::dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
      ::_exit(127);
    ::execvp(argv[0], argv.data());
    std::fprintf(stderr, "energy-prof profile: cannot run '%s': %s\n", argv[0],
                 std::strerror(errno));
    ::_exit(127);
  }
  int status = 0;
  if (pid > 0) {
    profiledChild = pid;
    sigprocmask(SIG_SETMASK, &unblocked, nullptr);
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR)
      ;
    profiledChild = 0;
  } else {
    sigprocmask(SIG_SETMASK, &unblocked, nullptr);
  }
  for (size_t i = 0; i < std::size(forwarded); ++i)
    sigaction(forwarded[i], &previous[i], nullptr);
  // A rank killed where no exit path runs (SIGKILL, the OOM killer) left
  // its device changed: its restore record says so, and its process is
  // gone now that the job is.
  {
    std::string unreadable;
    for (const energy::rt::RestoreOutcome &o :
         energy::rt::restoreStale(unreadable))
      if (o.kind != energy::rt::RestoreOutcome::Held &&
          o.kind != energy::rt::RestoreOutcome::Unverifiable)
        WithColor::warning(errs(), "energy-prof")
            << "profile: " << describe(o) << "\n";
  }
  std::error_code syncEc;
  // The ranks that started the sweep, and the job's size they saw.
  std::map<int, int> started;
  for (sys::fs::directory_iterator it(syncDir, syncEc), end;
       it != end && !syncEc; it.increment(syncEc)) {
    StringRef leaf = sys::path::filename(it->path());
    int r = 0, world = 0;
    std::ifstream in(it->path());
    if (leaf.consume_front("started.rank") && !leaf.getAsInteger(10, r) &&
        in >> world)
      started[r] = world;
  }
  // The adaptive choices' files go first (the shards stay for the merge).
  for (sys::fs::directory_iterator it(syncDir, syncEc), end;
       it != end && !syncEc; it.increment(syncEc))
    ::unlink(it->path().c_str());
  ::rmdir(syncDir.c_str());
  if (pid < 0) {
    ::rmdir(dir.c_str());
    return fail(std::string("fork: ") + std::strerror(errno));
  }
  std::vector<std::string> names, children;
  std::error_code ec;
  // The ranks' shards; beside them, those of child processes that measured
  // (a DataLoader's workers: shard-<rank>.json.pid<N>), which are not
  // pooled: a child does not follow its rank's clock sweep (it records no
  // profiled clock), but they go with the folder.
  for (sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec)) {
    StringRef leaf = sys::path::filename(it->path());
    if (leaf.ends_with(".json"))
      names.push_back(it->path());
    else if (leaf.contains(".json.pid"))
      children.push_back(it->path());
  }
  std::sort(names.begin(), names.end());
  // Ranks that started the sweep but wrote no shard (killed before their
  // first write), and ranks of the job that never started it: the DB holds
  // the others' measurements only.
  {
    std::string missing;
    int world = 0;
    for (auto &[r, w] : started) {
      world = std::max(world, w);
      if (!sys::fs::exists(dir + "/shard-" + std::to_string(r) + ".json"))
        missing += (missing.empty() ? "" : ", ") + std::to_string(r);
    }
    if (!missing.empty())
      WithColor::warning(errs(), "energy-prof")
          << "profile: rank(s) " << missing
          << " started the clock sweep but wrote no shard (killed before "
             "their first write?): the DB holds the other ranks' "
             "measurements only\n";
    if (world > int(started.size()))
      WithColor::warning(errs(), "energy-prof")
          << "profile: the job had " << world << " ranks, " << started.size()
          << " of them started the clock sweep\n";
  }
  auto cleanup = [&] {
    for (const std::string &n : names)
      ::unlink(n.c_str());
    for (const std::string &n : children)
      ::unlink(n.c_str());
    ::rmdir(dir.c_str());
  };
  // A failed job keeps what its ranks measured: the shards are pooled as
  // for a complete one, the DB written with a warning, and the command's
  // status returned.
  bool failed = !WIFEXITED(status) || WEXITSTATUS(status) != 0;
  // What energy-prof returns on an error of its own: the job's status
  // where the job failed.
  int errorRc = !failed             ? 1
                : WIFEXITED(status) ? WEXITSTATUS(status)
                                    : 128 + WTERMSIG(status);
  std::string how =
      "the profiled command " +
      (WIFEXITED(status)
           ? "exited with status " + std::to_string(WEXITSTATUS(status))
           : "was killed by signal " + std::to_string(WTERMSIG(status)));
  if (names.empty() && !children.empty()) {
    // Only child processes' shards: kept, named, for the user to look at
    // (the processes that wrote them were children of measuring processes
    // whose own shards are missing).
    std::string shards;
    for (const std::string &c : children)
      shards += (shards.empty() ? "" : ", ") + sys::path::filename(c).str();
    fail((failed ? how + "; " : std::string()) +
         "only child processes wrote shards (" + shards +
         "), no rank did; they are kept in " + dir);
    return errorRc;
  }
  if (names.empty()) {
    cleanup();
    if (failed) {
      fail(how + " before any rank wrote a shard; nothing was written");
      return errorRc;
    }
    return fail("the command wrote no shard: does it call er_init (or use "
                "energy_rt) and mark iterations with er_step?");
  }
  // From here an error keeps the shards where they are, named.
  auto keep = [&](const std::string &why) {
    fail(why + "; the ranks' shards are kept in " + dir);
    return errorRc;
  };
  std::vector<SignatureDb> shards(names.size());
  std::string err;
  for (size_t i = 0; i < names.size(); ++i)
    if (!readSignatureDb(names[i], shards[i], err))
      return keep(err);
  SignatureDb merged;
  std::vector<std::string> notes;
  if (!poolSignatureDbs(shards, names, merged, err, &notes))
    return keep(err);
  printNotes(notes, "profile");
  // The device given is the one the ranks were told to measure; a job that
  // chose its own (ENERGY_RT_DEVICE set inside, a Monitor's device=) made
  // a DB of another.
  if (checked)
    for (size_t i = 0; i < shards.size(); ++i)
      if (gpuModelOf(shards[i].device) != gpuModelOf(checked->identity())) {
        WithColor::warning(errs(), "energy-prof")
            << sys::path::filename(names[i]) << " was measured on '"
            << shards[i].device << "', not on --device " << name << " ("
            << checked->identity()
            << "): the job chose its own device (ENERGY_RT_DEVICE set "
               "inside it, or a Monitor's device=)\n";
        break;
      }
  // The job's whole command line: its script and arguments are what was
  // profiled (argv[0] alone is only the interpreter).
  merged.generator = energy::generatorJson(
      std::string("energy-prof profile ") +
          (limits ? "--power-limits " + limitList : "") + (grid ? " " : "") +
          (limits && !grid ? "" : "--clocks " + clockList) + " -- " +
          llvm::join(cmd, " "),
      {cmd.front()}, merged.sources);
  // A job that ends before the sweep does covers only its first clocks.
  size_t wanted = adaptive ? size_t(maxClocks)
                  : grid   ? powerLimitsW.size() * clocks.size()
                  : limits ? powerLimitsW.size()
                           : clocks.size();
  if (allClocks) {
    std::string why;
    std::unique_ptr<Device> dev = checked ? nullptr : openDevice(name, why);
    Device *d = checked ? checked.get() : dev.get();
    size_t n = d ? d->supportedSmClocks().size() : 0;
    wanted = (n ? (n + clockStride - 1) / clockStride : 0) *
             (grid ? powerLimitsW.size() : 1);
  }
  // The sweep's iterations, as the runtime runs them: after the warm-up,
  // each limit settles once (across limits and clocks, at its first
  // clock), and each limit, clock or pair is recorded.
  auto sweepIterations = [&] {
    size_t perLimit = grid ? wanted / powerLimitsW.size() : 1;
    std::string sum = std::to_string(warmupIterations) + " + ";
    size_t total = warmupIterations;
    if (limits) {
      size_t block = settleIterations + perLimit * iterationsPerClock;
      sum += std::to_string(powerLimitsW.size()) + " x (" +
             std::to_string(settleIterations) + " + " +
             (grid ? std::to_string(perLimit) + " x " : std::string()) +
             std::to_string(iterationsPerClock) + ")";
      total += powerLimitsW.size() * block;
    } else {
      sum +=
          std::to_string(wanted) + " x " + std::to_string(iterationsPerClock);
      total += wanted * iterationsPerClock;
    }
    return sum + " = " + std::to_string(total);
  };
  std::set<ProfilePoint> seen = fullyCoveredClocks(merged, "profile");
  if (merged.entries.empty()) {
    cleanup();
    fail((failed ? how + ", and the job" : std::string("the job")) +
         " recorded no region at a profiled " +
         (grid     ? "limit and clock"
          : limits ? "limit"
                   : "clock") +
         ": it must name regions and "
         "run " +
         Twine(warmupIterations) + " warm-up iterations, then " +
         Twine(iterationsPerClock) + " per " +
         (grid     ? "limit and clock (after its settling ones)"
          : limits ? "limit (after its settling ones)"
                   : "clock") +
         " (er_step / energy_rt.step() calls); nothing was "
         "written");
    return errorRc;
  }
  if (failed)
    WithColor::warning(errs(), "energy-prof")
        << how << "; the DB holds what its " << names.size()
        << " rank(s) measured before\n";
  // A rank that never marked its iterations (no step() calls) stays in its
  // warm-up and records nothing: its regions are missing from the DB, which
  // a schedule naming them finds out only at --energy-fill-signatures.
  std::vector<std::string> silent;
  for (size_t i = 0; i < shards.size(); ++i)
    if (shards[i].entries.empty())
      silent.push_back(sys::path::filename(names[i]).str());
  if (!silent.empty())
    WithColor::warning(errs(), "energy-prof")
        << silent.size() << " of the " << names.size()
        << " ranks recorded no region at a profiled clock ("
        << llvm::join(silent, ", ")
        << "): their regions are not in the DB (do they call er_step / "
           "energy_rt.step() at the end of every iteration?)\n";
  // Child processes' shards (a DataLoader's workers) are not pooled: say
  // what they measured, since the job printed where they wrote it.
  if (!children.empty()) {
    std::set<std::string> keys;
    for (const std::string &c : children) {
      SignatureDb child;
      std::string why;
      if (readSignatureDb(c, child, why))
        for (const DbEntry &e : child.entries)
          keys.insert(e.key);
    }
    WithColor::warning(errs(), "energy-prof")
        << children.size()
        << " child process(es) of the ranks (a DataLoader's workers) "
           "measured "
        << (keys.empty() ? std::string("no region")
                         : "regions " + llvm::join(keys, ", "))
        << ": not in the DB, since a child does not follow its rank's clock "
           "sweep (their shards go with the profile's temporary folder)\n";
  }
  // An adaptive sweep stops by itself past the energy valley: fewer clocks
  // than its maximum are then complete, and only a failed job is short.
  if (wanted && seen.size() < wanted && !(adaptive && !failed))
    WithColor::warning(errs(), "energy-prof")
        << "the job covered " << seen.size() << " of the " << wanted
        << (grid     ? " pairs of power limit and clock"
            : limits ? " power limits"
                     : " clocks")
        << " in full: it must run " << sweepIterations()
        << " iterations (er_step calls) for the whole sweep\n";
  if (writeOutput(writeSignatureDb(merged)) != 0)
    return keep("the DB was not written");
  cleanup();
  errs() << "profiled " << names.size() << " rank(s) at "
         << (grid     ? "power limits and clocks "
             : limits ? "power limits "
                      : "clocks ")
         << list << ": " << merged.entries.size() << " entries\n";
  return failed ? errorRc : 0;
}

/// `route FLEET.json`: compares routing policies (docs/ROUTING.md).
static int routeCmd() {
  if (positionalFiles().size() != 1)
    return fail("route needs exactly one fleet file");
  energy::RouteOptions o;
  o.fleetFile = positionalFiles().front();
  if (routeHorizon.getNumOccurrences())
    o.horizon = routeHorizon;
  if (runs.getNumOccurrences())
    o.runs = runs;
  if (seed.getNumOccurrences())
    o.seed = seed;
  o.perTask = routePerTask;
  o.horizons.assign(routeHorizons.begin(), routeHorizons.end());
  if (!routeCsv.empty() && o.horizons.empty())
    return fail("--csv needs --horizons");
  if (!routeSvg.empty() && o.horizons.empty())
    return fail("--svg needs --horizons");
  energy::RouteOutput out;
  std::string err;
  if (!energy::routeCommand(
          o, energy::generatorJson("energy-prof route", {o.fleetFile}), out,
          err))
    return fail(err);
  std::signal(SIGXFSZ, SIG_IGN);
  if (!routeCsv.empty() &&
      !AtomicFile::writeWhole(routeCsv, out.horizonsCsv, err))
    return fail(err);
  if (!routeSvg.empty() &&
      !AtomicFile::writeWhole(routeSvg, out.horizonsSvg, err))
    return fail(err);
  if (int rc = writeOutput(out.reportJson))
    return rc;
  errs() << out.summary;
  return 0;
}

/// `validate-serving PATH...` and `serve-plan PATH... --serve-model M --gpu G
/// --tp T --slo-p90-itl-ms X` (docs/VALIDATION.md).
static int servingCmd() {
  if (positionalFiles().empty())
    return fail(command + " needs the measurement files or directories");
  std::vector<std::string> paths(positionalFiles().begin(),
                                 positionalFiles().end());
  std::string text, err;
  bool ok;
  if (validateServingSub) {
    // The uncalibrated model's coefficients: energies, positive and finite.
    for (auto *o : {&flopJoules, &byteJoules})
      if (!(*o > 0) || !std::isfinite(*o))
        return fail("--" + o->ArgStr.str() +
                    " must be a positive number of "
                    "joules; got " +
                    std::to_string(double(*o)));
    ok = energy::validateServingCommand(
        paths, energy::generatorJson("energy-prof validate-serving", paths),
        flopJoules, byteJoules, text, err);
  } else {
    if (serveModel.empty() || serveGpu.empty() ||
        !serveSloMs.getNumOccurrences())
      return fail("serve-plan needs --serve-model, --gpu and --slo-p90-itl-ms");
    ok = energy::servePlanCommand(
        paths, serveModel, serveGpu, serveTp, serveGpus, serveSloMs,
        serveClockModel.getNumOccurrences()
            ? std::optional<std::string>(serveClockModel)
            : std::nullopt,
        text, err);
  }
  if (!ok)
    return fail(err);
  return writeOutput(text);
}

/// `restore`: resets the devices that processes now gone left changed
/// (runtime/RestoreRecord.h), and says which records live processes hold.
static int restoreCmd() {
  std::string err;
  std::vector<energy::rt::RestoreOutcome> outcomes =
      energy::rt::restoreStale(err, forceRestore);
  if (!err.empty())
    WithColor::warning(errs(), "energy-prof") << err << "\n";
  if (outcomes.empty()) {
    outs() << "no restore records in " << energy::rt::restoreRecordDir()
           << ": nothing to restore\n";
    return 0;
  }
  int failed = 0;
  for (const energy::rt::RestoreOutcome &o : outcomes) {
    if (o.kind == energy::rt::RestoreOutcome::Failed) {
      ++failed;
      WithColor::error(errs(), "energy-prof") << describe(o) << "\n";
    } else
      outs() << describe(o) << "\n";
  }
  return failed ? 1 : 0;
}

/// The subcommands by name, in the order --help lists them.
static cl::SubCommand *const subcommands[] = {
    &characterizeSub, &probeSub,           &measureCompositeSub,
    &fitSub,          &mergeSub,           &profileSub,
    &routeSub,        &validateServingSub, &servePlanSub,
    &restoreSub,      &runPlanSub,         &planClocksSub};

static std::string commandList() {
  std::string names;
  for (size_t i = 0; i < std::size(subcommands); ++i)
    names += (i ? (i + 1 == std::size(subcommands) ? " or " : ", ") : "") +
             subcommands[i]->getName().str();
  return names;
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  // After InitLLVM, whose own handler (LLVM ERROR, abort) it replaces; a
  // GPU this process holds changed is restored before the exit.
  energy::tools::sayOutOfMemory("energy-prof",
                                [] { energy::rt::restoreGuardedDevices(); });
  // Only our options in every subcommand's --help (LLVM Support's own are
  // registered too: it is linked statically).
  cl::HideUnrelatedOptions(category);
  for (cl::SubCommand *sub : subcommands)
    cl::HideUnrelatedOptions(category, *sub);
  // run-plan, profile: everything after the first "--" is the command,
  // untouched.
  std::vector<std::string> child;
  for (int i = 1; i < argc; ++i)
    if (StringRef(argv[i]) == "--") {
      for (int j = i + 1; j < argc; ++j)
        child.push_back(argv[j]);
      argc = i;
      break;
    }
  // A first argument that is neither an option nor a command: say which
  // commands there are (LLVM's parser would call it a positional argument).
  if (argc > 1 && !StringRef(argv[1]).starts_with("-") &&
      llvm::none_of(subcommands, [&](cl::SubCommand *sub) {
        return sub->getName() == argv[1];
      }))
    return fail("unknown command '" + Twine(argv[1]) + "'; expected " +
                commandList());
  {
    cl::SubCommand *sub = nullptr;
    for (cl::SubCommand *s : subcommands)
      if (argc > 1 && s->getName() == argv[1])
        sub = s;
    if (!energy::refuseHelpTypos(argc, argv, sub ? 2 : 1, sub, "energy-prof"))
      return 1;
  }
  energy::addVersionPrinter();
  cl::ParseCommandLineOptions(
      argc, argv,
      "energy-prof: measure kernels into signatures, fit models, profile "
      "jobs and apply plans\n\n  energy-prof <command> [options]; "
      "energy-prof <command> --help lists the command's options\n");
  for (cl::SubCommand *sub : subcommands)
    if (*sub)
      command = sub->getName().str();
  if (command.empty())
    return fail("no command; expected " + commandList() +
                " (energy-prof --help lists them)");
  if (quiet)
    energy::progress::setQuiet(true);
  // No output replaces an input or another output of the run; merge may
  // rewrite a DB in place (its own format).
  for (const std::string &f : positionalFiles())
    AtomicFile::noteInput(f);
  for (const std::string *f : {&kernelsFile.getValue(), &dataFile.getValue()})
    AtomicFile::noteInput(*f);
  {
    std::string err;
    if ((output.getNumOccurrences() &&
         !AtomicFile::claimOutput(output, "-o",
                                  mergeSub ? output : std::string(), err)) ||
        (!routeCsv.empty() &&
         !AtomicFile::claimOutput(routeCsv, "--csv", "", err)) ||
        (!routeSvg.empty() &&
         !AtomicFile::claimOutput(routeSvg, "--svg", "", err)))
      return fail(err);
  }
  if (runPlanSub)
    return runPlanCommand(std::move(child));
  if (profileSub)
    return profileCommand(std::move(child));
  if (!child.empty())
    return fail("'--' is only for run-plan's and profile's command");
  if (planClocksSub)
    return planClocksCommand();
  if (fitSub)
    return fit();
  if (mergeSub)
    return merge();
  if (routeSub)
    return routeCmd();
  if (restoreSub)
    return restoreCmd();
  if (validateServingSub || servePlanSub)
    return servingCmd();
  if (deviceName.empty())
    return fail(command + " needs --device");
  std::string err;
  bool runsKernels = characterizeSub || measureCompositeSub;
  std::unique_ptr<Device> dev = openDevice(deviceName, err, runsKernels);
  if (!dev)
    return fail(err);
  // Tests watch a simulated sweep's clock from outside (as a GPU's clocks
  // outlive the process that set them).
  if (auto *sim = dynamic_cast<SimDevice *>(dev.get());
      sim && !simState.empty()) {
    sim->clockStateFile = simState + ".clock";
    sim->powerLimitStateFile = simState + ".power";
  }
  if (probeSub) {
    outs() << dev->identity() << ": SM clock " << dev->currentSmClock()
           << " MHz, energy counter " << dev->energyCounterMilliJoules()
           << " mJ, " << formatv("{0:F0}", dev->temperature()) << " degC, "
           << dev->supportedSmClocks().size() << " supported SM clocks";
    PowerLimits lim;
    std::string why;
    if (dev->powerLimits(lim, why))
      outs() << formatv(", power limit {0:F0} W (default {1:F0} W, range "
                        "{2:F0}-{3:F0} W)",
                        lim.currentW, lim.defaultW, lim.minW, lim.maxW);
    else
      outs() << ", power limit unknown (" << why << ")";
    outs() << "\n";
    // A full or closed standard output is an error to report, not LLVM's
    // fatal "IO failure on output stream" at exit.
    outs().flush();
    if (outs().has_error()) {
      std::string failure = outs().error().message();
      outs().clear_error();
      return fail("standard output: write failed: " + failure);
    }
    return 0;
  }
  if (kernelsFile.empty())
    return fail(command + " needs --kernels");
  if (runs < 2)
    return fail("--runs must be at least 2");
  // Each run is at least one pass over the kernels (and keeps its
  // measurements): a count past ten million is a typo, not a sweep (2^32 - 1
  // ran for hours, its memory growing).
  if (runs > 10000000)
    return fail("--runs takes at most 10000000 runs; got " + Twine(runs));
  if (measureCompositeSub)
    return measureComposite(*dev);
  if ((!clocks.empty() || !powerLimitsW.empty()) && !allowClockChanges)
    return fail("--clocks and --power-limits change the device's settings: "
                "add --allow-clock-changes to allow it (they are restored on "
                "exit)");
  if (allClocks && !clocks.empty())
    return fail("--all-clocks and --clocks exclude each other");
  if (clocksRepeat())
    return 1;
  if (clockStride < 1 || (clockStride > 1 && !allClocks))
    return fail("--clock-stride needs --all-clocks and must be at least 1");
  if (allClocks && !allowClockChanges)
    return fail("--all-clocks changes the device's settings: add "
                "--allow-clock-changes to allow it (restored on exit)");
  std::vector<KernelSpec> kernels;
  std::vector<CompositeSpec> composites;
  if (!readKernels(kernelsFile, kernels, &composites, err))
    return fail(err);
  if (kernels.empty())
    return fail(kernelsFile + ": no kernels to characterize");
  if (std::string why; !canRunAll(*dev, kernels, why))
    return fail(why);
  ProtocolOptions opts;
  opts.runs = runs;
  std::vector<int> sweep(clocks.begin(), clocks.end());
  if (allClocks) {
    std::vector<int> all = dev->supportedSmClocks();
    std::sort(all.rbegin(), all.rend());
    for (size_t i = 0; i < all.size(); i += clockStride)
      sweep.push_back(all[i]);
  }
  std::vector<Measurement> entries;
  std::vector<std::string> warnings;
  bool ok = characterizeSweep(*dev, kernels, sweep,
                              {powerLimitsW.begin(), powerLimitsW.end()}, opts,
                              entries, warnings, err);
  for (const std::string &w : warnings)
    WithColor::warning(errs(), "energy-prof") << w << "\n";
  if (!ok)
    return fail(err);
  // Composites, at every operating point their kernels were measured at.
  size_t measuredCount = entries.size();
  EntryIndex index;
  for (size_t i = 0; i < measuredCount; ++i)
    if (entries[i].l2 != "warm")
      index[{entries[i].key, entries[i].smMhz, entries[i].powerLimit}] = i;
  for (const CompositeSpec &c : composites)
    for (size_t i = 0; i < measuredCount; ++i) {
      const Measurement &m = entries[i];
      if (m.key != c.parts.front().first || m.l2 == "warm")
        continue;
      Measurement composed;
      if (composeEntry(c, entries, index, m.smMhz, m.powerLimit, composed))
        entries.push_back(composed);
    }
  return writeOutput(signatureDbJson(
      dev->identity(), entries,
      StringRef(deviceName).starts_with("sim:") ? "simulated" : "measured",
      energy::generatorJson("energy-prof characterize --device " + deviceName,
                            {kernelsFile})));
}
