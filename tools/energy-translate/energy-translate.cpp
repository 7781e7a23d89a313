//===- energy-translate.cpp - import traces and profiles ------------------===//
//
//   energy-translate --import-kineto rank0.json[.gz] rank1.json ... [-o out]
//       [--static-power W] [--dynamic-power W]
//   energy-translate --import-stage-profile profile.csv --schedule 1f1b
//       --microbatches M --device A40 [--stages N] [--static-power W]
//       [--stage-keys] [-o out]
//   energy-translate --export-plan planned.mlir [-o plan.json]
//   energy-translate --export-frontier with-frontier.mlir [-o frontier.csv]
//
//===----------------------------------------------------------------------===//

#include "dialect/Energy/Units.h"
#include "passes/Registration.h"
#include "runtime/AtomicFile.h"
#include "runtime/AtomicStream.h"
#include "runtime/Progress.h"
#include "runtime/db/SignatureDb.h"
#include "runtime/formats/Input.h"
#include "tools/DeepInput.h"
#include "tools/HelpTypos.h"
#include "tools/HugePageHeap.h"
#include "tools/OutOfMemory.h"
#include "tools/VersionPrinter.h"
#include "translate/Translate.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"

#include <csignal>
#include <map>
#include <optional>
#include <set>
#include <sys/stat.h>

using namespace llvm;

static cl::OptionCategory category("energy-translate options");
static cl::opt<bool> importKinetoFlag(
    "import-kineto",
    cl::desc("import PyTorch profiler / Kineto traces, one per rank"),
    cl::cat(category));
static cl::opt<bool> importStageProfileFlag(
    "import-stage-profile",
    cl::desc("import a Perseus stage profile "
             "(stage,instruction,frequency,time,energy)"),
    cl::cat(category));
static cl::opt<bool>
    exportPlanFlag("export-plan",
                   cl::desc("write the JSON plan of planned schedules (IR in)"),
                   cl::cat(category));
static cl::opt<bool> exportFrontierFlag(
    "export-frontier",
    cl::desc("write a schedule's energy.frontier as CSV (IR in)"),
    cl::cat(category));
static cl::opt<bool> exportStageProfileFlag(
    "export-stage-profile",
    cl::desc("write a signature DB's stage<k>.forward/backward entries as a "
             "Perseus stage profile CSV (DB in)"),
    cl::cat(category));
static cl::opt<bool> exportPerfettoFlag(
    "export-perfetto",
    cl::desc("write timed schedules as a Chrome/Perfetto trace with power "
             "and energy counters (IR in)"),
    cl::cat(category));
static cl::opt<bool> exportReportFlag(
    "export-report",
    cl::desc("write a self-contained HTML report of a (planned) schedule: "
             "frontier, timeline, energy breakdown, clocks (IR in)"),
    cl::cat(category));
static cl::opt<bool>
    exportSvgFlag("export-svg",
                  cl::desc("write a schedule's frontier figure as SVG (IR in)"),
                  cl::cat(category));
static cl::list<std::string> inputs(cl::Positional, cl::desc("<inputs>"),
                                    cl::cat(category));
static cl::opt<std::string> output("o", cl::desc("output file"), cl::init("-"),
                                   cl::cat(category));
static cl::opt<std::string>
    scheduleName("schedule",
                 cl::desc("--import-stage-profile's pipeline schedule: 1f1b "
                          "(default) or gpipe"),
                 cl::init("1f1b"), cl::cat(category));
static cl::opt<int64_t> microbatches(
    "microbatches",
    cl::desc("--import-stage-profile's microbatches per iteration"),
    cl::init(0), cl::cat(category));
static cl::opt<int64_t> stagesExpected(
    "stages",
    cl::desc("--import-stage-profile: the pipeline's stage count, checked "
             "against the profile's (a profile that lost its last stages "
             "reads as a shorter pipeline)"),
    cl::init(0), cl::cat(category));
static cl::opt<bool> stageKeys(
    "stage-keys",
    cl::desc("--import-stage-profile: key each stage's passes as a profiled "
             "job's regions (stage<k>.forward / stage<k>.backward), so that "
             "plan-clocks --by-key writes the plan as their begins"),
    cl::init(false), cl::cat(category));
static cl::opt<std::string> deviceKind("device",
                                       cl::desc("GPU kind of a stage profile"),
                                       cl::cat(category));
static cl::opt<double>
    staticPower("static-power",
                cl::desc("static power per GPU (W); overrides the table"),
                cl::init(-1), cl::cat(category));
static cl::opt<double> dynamicPower(
    "dynamic-power",
    cl::desc("Kineto: opt-in model, every GPU event without its own d_J (our "
             "exports carry one) draws this dynamic power (W)"),
    cl::init(-1), cl::cat(category));
static cl::opt<std::string> dbKeys(
    "db-keys",
    cl::desc("Kineto: a signature DB; each GPU event whose kernel name is "
             "one of its keys gets `db \"name\"` and its measured duration, "
             "for --energy-fill-signatures to give it the DB's operating set"),
    cl::value_desc("DB.json"), cl::init(""), cl::cat(category));
static cl::opt<std::string> regions(
    "regions",
    cl::desc("Kineto: a pattern (POSIX extended regex) of CPU ranges "
             "(user_annotation, as torch.profiler.record_function writes "
             "them; cpu_op; Operator); the GPU events launched inside each "
             "become one task named as the range (a region, as --db-keys "
             "and plan-clocks --by-key name it)"),
    cl::value_desc("REGEX"), cl::init(""), cl::cat(category));
static cl::opt<int64_t> profilerStep(
    "profiler-step",
    cl::desc("Kineto: of a trace of several torch.profiler steps, keep step "
             "N (its CPU range ProfilerStep#N): the GPU events launched "
             "inside it, and the --regions ranges begun inside it, numbered "
             "from it as the job's er_step counts them"),
    cl::value_desc("N"), cl::init(-1), cl::cat(category));
/// Opens -o and hands its stream to `write`; keeps the file on success.
/// -o, whole or not at all (runtime/AtomicStream.h): a failed write leaves
/// the old file intact and exits 1.
static int writeOutput(llvm::function_ref<bool(raw_ostream &)> write) {
  // A file-size limit (ulimit -f) is an error to report, not a signal that
  // kills the tool mid-write (set here, after LLVM installed its handlers).
  std::signal(SIGXFSZ, SIG_IGN);
  std::string err;
  if (energy::rt::writeAtomically(output, write, err))
    return 0;
  if (!err.empty())
    WithColor::error() << err << "\n";
  return 1;
}

static cl::opt<bool> quiet("quiet", cl::desc("no progress on stderr"),
                           cl::cat(category));

static cl::opt<std::string>
    summaryFile("summary",
                cl::desc("where --import-kineto's summary goes (default "
                         "stderr)"),
                cl::init(""), cl::cat(category));

int main(int argc, char **argv) {
  energy::tools::adviseHugePageHeap();
  InitLLVM init(argc, argv);
  // After InitLLVM, whose own handler (LLVM ERROR, abort) it replaces.
  energy::tools::sayOutOfMemory("energy-translate");
  cl::HideUnrelatedOptions(category);
  energy::addVersionPrinter();
  mlir::registerDefaultTimingManagerCLOptions();
  // The printer's flags (--mlir-print-local-scope writes every operating
  // set inline, ...), as energy-opt has them.
  mlir::registerAsmPrinterCLOptions();
  if (!energy::refuseHelpTypos(argc, argv, 1, nullptr, "energy-translate"))
    return 1;
  cl::ParseCommandLineOptions(argc, argv,
                              "energy-translate: import traces "
                              "and profiles into the sched dialect\n");
  if (quiet)
    energy::progress::setQuiet(true);
  if (int(importKinetoFlag) + int(importStageProfileFlag) +
          int(exportPlanFlag) + int(exportFrontierFlag) +
          int(exportPerfettoFlag) + int(exportStageProfileFlag) +
          int(exportReportFlag) + int(exportSvgFlag) !=
      1) {
    WithColor::error() << "choose exactly one of --import-kineto, "
                          "--import-stage-profile, --export-plan, "
                          "--export-frontier, --export-perfetto, "
                          "--export-report, --export-svg and "
                          "--export-stage-profile\n";
    return 2;
  }
  // Powers past 1e15 W are absurd (the signature DB's magnitude limit,
  // docs/SIGNATURE-DB.md) and would overflow energies to infinity.
  // --import-kineto's own options: each needs its value, and the trace.
  struct KinetoOnly {
    cl::opt<std::string> *flag;
    const char *value, *what;
  };
  for (const KinetoOnly &k :
       {KinetoOnly{&dbKeys, "a signature DB's path", "kernels it names"},
        KinetoOnly{&regions, "a pattern of CPU range names",
                   "CPU ranges it groups kernels by"}}) {
    if (k.flag->getNumOccurrences() && k.flag->empty()) {
      WithColor::error() << "--" << k.flag->ArgStr << " needs " << k.value
                         << "\n";
      return 2;
    }
    if (!k.flag->empty() && !importKinetoFlag) {
      WithColor::error() << "--" << k.flag->ArgStr
                         << " is --import-kineto's (the trace's " << k.what
                         << ")\n";
      return 2;
    }
  }
  if (stageKeys && !importStageProfileFlag) {
    WithColor::error() << "--stage-keys is --import-stage-profile's (it "
                          "keys a stage profile's passes)\n";
    return 2;
  }
  if (profilerStep.getNumOccurrences() && !importKinetoFlag) {
    WithColor::error() << "--profiler-step is --import-kineto's (the "
                          "trace's torch.profiler step to keep)\n";
    return 2;
  }
  if (profilerStep.getNumOccurrences() && profilerStep < 0) {
    WithColor::error() << "--profiler-step must be a step's number (0 or "
                          "more: ProfilerStep#N); got "
                       << profilerStep << "\n";
    return 2;
  }
  for (auto *flag : {&staticPower, &dynamicPower})
    if (flag->getNumOccurrences() && !(*flag >= 0 && *flag <= 1e15)) {
      WithColor::error() << "--" << flag->ArgStr
                         << " must lie in [0, 1e15] W; got "
                         << energy::formatNumber(*flag) << "\n";
      return 2;
    }
  // No output replaces an input or another output (every translation
  // changes the format: a trace written over the IR it came from is lost).
  {
    using energy::rt::AtomicFile;
    for (const std::string &in : inputs)
      AtomicFile::noteInput(in);
    std::string err;
    // Both on standard output, the summary's lines would lead the IR (or
    // the JSON) and the next tool of a pipe would read them as its input.
    // By the file itself (any name of it: /dev/stdout, /dev/./stdout, a
    // link), not by spelling; /dev/null holds nothing to mix.
    auto toStdout = [](const std::string &p) {
      if (p == "-")
        return true;
      struct stat a, out, null;
      return ::stat(p.c_str(), &a) == 0 && ::fstat(1, &out) == 0 &&
             a.st_dev == out.st_dev && a.st_ino == out.st_ino &&
             !(::stat("/dev/null", &null) == 0 && a.st_dev == null.st_dev &&
               a.st_ino == null.st_ino);
    };
    if (!summaryFile.empty() && toStdout(summaryFile) && toStdout(output)) {
      WithColor::error() << "--summary=" << summaryFile
                         << " and the output both go to standard output: "
                            "give one of them a file (-o FILE)\n";
      return 2;
    }
    if (!AtomicFile::claimOutput(output, "-o", "", err) ||
        (!summaryFile.empty() &&
         !AtomicFile::claimOutput(summaryFile, "--summary", "", err))) {
      WithColor::error() << err << "\n";
      return 2;
    }
  }
  mlir::DialectRegistry registry;
  energy::registerAllEnergy(registry);
  // What energy-opt reads, an export reads: trees may sit in func bodies.
  registry.insert<mlir::func::FuncDialect>();
  // No passes run here: uniquing without locks is the faster choice.
  mlir::MLIRContext ctx(registry, mlir::MLIRContext::Threading::DISABLED);
  ctx.loadAllAvailableDialects();
  // Diagnostics as "file:line:col: error: ..." (with the source line for
  // the .mlir files an export reads), like energy-opt's.
  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler diagnostics(sourceMgr, &ctx);
  ctx.printOpOnDiagnostic(false); // the location and name, not the op

  if (exportStageProfileFlag) {
    if (inputs.empty()) // the DB from stdin, as the exports read IR
      inputs.push_back("-");
    if (inputs.size() != 1) {
      WithColor::error() << "--export-stage-profile takes one signature DB "
                            "(or - or nothing for stdin)\n";
      return 2;
    }
    std::string err;
    return writeOutput([&](raw_ostream &os) {
      std::string note;
      if (energy::exportStageProfile(inputs[0], os, err, note)) {
        WithColor::note() << note << "\n";
        return true;
      }
      WithColor::error() << err << "\n";
      return false;
    });
  }
  if (exportPlanFlag || exportFrontierFlag || exportPerfettoFlag ||
      exportReportFlag || exportSvgFlag) {
    // No file: the IR from stdin, as from `energy-opt ... |`.
    if (inputs.empty())
      inputs.push_back("-");
    if (inputs.size() != 1) {
      WithColor::error() << "an export takes one .mlir file (or - or "
                            "nothing for stdin)\n";
      return 2;
    }
    std::string err;
    std::unique_ptr<llvm::MemoryBuffer> file =
        energy::formats::readInput(inputs[0], err);
    if (!file) {
      WithColor::error() << inputs[0] << ": " << err << "\n";
      return 1;
    }
    // An empty standard input almost always means the command before this
    // one in a pipe failed (as energy-opt says): not "no schedule".
    if (inputs[0] == "-" && file->getBuffer().trim().empty()) {
      WithColor::error() << "standard input is empty (did the command "
                            "before this one in a pipe fail?); nothing "
                            "written\n";
      return 1;
    }
    sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
    // Text nested too deep for the parser is refused before it recurses,
    // and deep text that is accepted is parsed on a deep stack
    // (tools/DeepInput.h).
    unsigned depth = 0;
    if (!energy::tools::checkNesting(sourceMgr, sourceMgr.getMainFileID(),
                                     depth))
      return 1;
    return energy::tools::onParseStack(depth, "energy-translate", [&] {
      mlir::ParserConfig config(&ctx);
      mlir::OwningOpRef<mlir::ModuleOp> in =
          mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr, config);
      if (!in)
        return 1;
      return writeOutput([&](raw_ostream &os) {
        if (exportReportFlag || exportSvgFlag)
          return succeeded(energy::exportReport(*in, os, exportSvgFlag));
        return succeeded(exportPlanFlag ? energy::exportPlan(*in, os)
                         : exportPerfettoFlag
                             ? energy::exportPerfetto(*in, os)
                             : energy::exportFrontier(*in, os));
      });
    });
  }

  mlir::DefaultTimingManager timing;
  mlir::applyDefaultTimingManagerCLOptions(timing);
  mlir::TimingScope root = timing.getRootScope();
  mlir::OwningOpRef<mlir::ModuleOp> module;
  if (importKinetoFlag) {
    energy::KinetoOptions opts;
    opts.files.assign(inputs.begin(), inputs.end());
    if (staticPower.getNumOccurrences())
      opts.staticPower = staticPower;
    if (dynamicPower.getNumOccurrences())
      opts.dynamicPower = dynamicPower;
    opts.regions = regions;
    if (profilerStep.getNumOccurrences())
      opts.profilerStep = profilerStep;
    if (!dbKeys.empty()) {
      energy::rt::SignatureDb db;
      std::string why;
      if (!energy::rt::readSignatureDb(dbKeys, db, why)) {
        WithColor::error() << "--db-keys: " << why << "\n";
        return 1;
      }
      // Warm entries are a context of a key, not a kernel of their own
      // (the fill hands them to elements that reuse data).
      // Measured under power limits as --energy-fill-signatures reads a
      // key's entries: several limits, or one below the device's default
      // then (every `characterize` entry records the limit in force, the
      // default included, which caps nothing). Any such key: capped.
      opts.dbKeysFile = dbKeys;
      bool capped = false;
      std::map<std::string, std::set<std::optional<double>>> limits;
      for (const energy::rt::DbEntry &e : db.entries)
        if (e.l2 != "warm") {
          opts.dbKeys.insert(e.key);
          limits[e.key].insert(e.powerLimit);
          capped |= e.powerLimit && e.defaultPowerLimit &&
                    *e.powerLimit < *e.defaultPowerLimit * (1 - 1e-9);
          if (e.smMhz > 0)
            opts.traceMhz = std::max(opts.traceMhz.value_or(0), e.smMhz);
        }
      for (const auto &[key, of] : limits)
        capped |= of.size() > 1;
      // A DB measured under power limits: a kernel it does not name has no
      // cap its trace figures were measured under that a plan could hold
      // it to, so it keeps the clock in force (docs/SCHED.md).
      if (capped)
        opts.traceMhz.reset();
    }
    // The summary file is written whole once the import succeeded (a
    // failed import leaves it as it was); checked writable first.
    std::string summaryText, err;
    llvm::raw_string_ostream summary(summaryText);
    if (!summaryFile.empty() &&
        !energy::rt::AtomicFile::checkWritable(summaryFile, err)) {
      WithColor::error() << "cannot write " << summaryFile << ": " << err
                         << "\n";
      return 1;
    }
    module = energy::importKineto(
        &ctx, opts,
        summaryFile.empty() ? static_cast<raw_ostream &>(errs()) : summary,
        root);
    if (module && !summaryFile.empty() &&
        !energy::rt::writeAtomically(
            summaryFile,
            [&](raw_ostream &os) {
              os << summaryText;
              return true;
            },
            err)) {
      WithColor::error() << "cannot write " << summaryFile << ": " << err
                         << "\n";
      return 1;
    }
  } else {
    if (inputs.empty()) // the CSV from stdin (the CSV reader takes -)
      inputs.push_back("-");
    if (inputs.size() != 1) {
      WithColor::error() << "--import-stage-profile takes one CSV file (or - "
                            "or nothing for stdin)\n";
      return 2;
    }
    if (!microbatches.getNumOccurrences()) {
      WithColor::error() << "--import-stage-profile needs --microbatches (the "
                            "microbatches per iteration)\n";
      return 2;
    }
    energy::StageProfileOptions opts;
    opts.file = inputs[0];
    opts.schedule = scheduleName;
    opts.microbatches = microbatches;
    if (stagesExpected.getNumOccurrences())
      opts.stages = stagesExpected;
    opts.device = deviceKind;
    if (staticPower.getNumOccurrences())
      opts.staticPower = staticPower;
    opts.stageKeys = stageKeys;
    module = energy::importStageProfile(&ctx, opts);
  }
  if (!module)
    return 1;
  // The importers verified the module; printing need not verify it again.
  // Operating sets print once each, as `#opset` aliases.
  mlir::TimingScope outputTiming = root.nest("Output");
  return writeOutput([&](raw_ostream &os) {
    module->print(os, mlir::OpPrintingFlags().assumeVerified());
    os << '\n';
    return true;
  });
}
