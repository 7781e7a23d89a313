//===- energy-opt.cpp - the energy compiler driver ------------------------===//
//
// mlir-opt with the energy dialects and passes, plus builtin/func and the
// upstream transforms (-canonicalize, -cse, ...).
//
// Two printing defaults differ from mlir-opt, for schedules with millions
// of ops:
//  - `--mlir-print-assume-verified` while `--verify-each` is on (the
//    default): the module was verified after parsing and after every pass,
//    so printing does not verify it again.
//  - `--mlir-print-op-on-diagnostic=false`: a diagnostic gives the op's
//    location and name, not the op printed whole (a schedule op is the
//    whole schedule: one error once printed 1,008,035 bytes).
// Each can be turned back by passing it explicitly (`=false` / `=true`).
// Aliases stay on: operating sets print once as `#opset = [...]` (an
// 8 x 512 pipeline's expanded IR: 42 MB inline, 1.5 MB aliased; the alias
// walk costs 7-30 % of a run on trees without any: bench/RESULTS.md),
// except with `-split-input-file`: each chunk would define its own
// `#opset`, and the output read as one file would define them twice.
//
// The output (-o) is written whole or not at all (runtime/AtomicStream.h):
// a failed pass or a failed write (a full disk, /dev/full) leaves the old
// file as it was and exits 1 with the reason, never LLVM's fatal error.
//
//===----------------------------------------------------------------------===//

#include "passes/Registration.h"
#include "runtime/AtomicStream.h"
#include "runtime/formats/Input.h"
#include "tools/DeepInput.h"
#include "tools/HugePageHeap.h"
#include "tools/OutOfMemory.h"
#include "tools/VersionPrinter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

#include "runtime/Progress.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/WithColor.h"
#include <csignal>

#include <vector>

/// Long frontiers and plans show progress on stderr when it is a terminal
/// (runtime/Progress.h); --quiet turns it off.
static llvm::cl::opt<bool> quiet("quiet",
                                 llvm::cl::desc("no progress on stderr"));

/// The files the passes' options name for reading (`db=`, `model=`,
/// `measured=`, `measurements=`, `table=`, `fleet=`; comma-separated lists
/// and quoted values too), wherever they appear on the command line
/// (`--energy-fill-signatures=db=x.json`, `--pass-pipeline=...{db=x.json}`),
/// noted as the run's inputs where they are existing regular files (a
/// serve plan's `model=` names a model, not a file).
static void notePassInputs(int argc, char **argv) {
  static const char *const keys[] = {
      "db=", "model=", "measured=", "measurements=", "table=", "fleet="};
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg(argv[i]);
    for (llvm::StringRef key : keys)
      for (size_t at = arg.find(key); at != llvm::StringRef::npos;
           at = arg.find(key, at + key.size())) {
        if (at > 0 && !llvm::StringRef("{ \"'=").contains(arg[at - 1]))
          continue; // part of another option's name
        size_t from = at + key.size(), to;
        if (from < arg.size() && (arg[from] == '"' || arg[from] == '\'')) {
          to = arg.find(arg[from], from + 1);
          ++from;
        } else {
          to = arg.find_first_of(" }\"'", from);
        }
        llvm::SmallVector<llvm::StringRef> paths;
        arg.slice(from, to).split(paths, ',', -1, false);
        for (llvm::StringRef p : paths)
          if (llvm::sys::fs::is_regular_file(p))
            energy::rt::AtomicFile::noteInput(p.str());
      }
  }
}

int main(int argc, char **argv) {
  energy::tools::adviseHugePageHeap();
  energy::tools::sayOutOfMemory("energy-opt");
  std::vector<char *> args(argv, argv + argc);
  auto given = [&](llvm::StringRef name) {
    for (int i = 1; i < argc; ++i) {
      llvm::StringRef a(argv[i]);
      a = a.ltrim('-');
      if (a == name || a.starts_with((name + "=").str()))
        return true;
    }
    return false;
  };
  auto off = [&](llvm::StringRef name) {
    for (int i = 1; i < argc; ++i) {
      llvm::StringRef a = llvm::StringRef(argv[i]).ltrim('-');
      if (a == (name + "=false").str() || a == (name + "=0").str())
        return true;
    }
    return false;
  };
  static char noOpOnDiagnostic[] = "--mlir-print-op-on-diagnostic=false";
  if (!given("mlir-print-op-on-diagnostic"))
    args.insert(args.begin() + 1, noOpOnDiagnostic);
  static char localScope[] = "--mlir-print-local-scope";
  if (given("split-input-file") && !given("mlir-print-local-scope"))
    args.insert(args.begin() + 1, localScope);
  static char assumeVerified[] = "--mlir-print-assume-verified";
  if (!given("mlir-print-assume-verified") && !off("verify-each"))
    args.insert(args.begin() + 1, assumeVerified);
  argc = int(args.size());
  args.push_back(nullptr);
  argv = args.data();

  energy::addVersionPrinter();
  mlir::DialectRegistry registry;
  energy::registerAllEnergy(registry);
  registry.insert<mlir::func::FuncDialect>();
  mlir::registerTransformsPasses();
  auto [inputFile, outputFile] = mlir::registerAndParseCLIOptions(
      argc, argv, "energy-opt: compose, bound and optimize energy\n", registry);
  mlir::MlirOptMainConfig config =
      mlir::MlirOptMainConfig::createFromCLOptions();
  if (quiet)
    energy::progress::setQuiet(true);
  // The lists print and exit, writing no output file.
  if (config.shouldShowDialects() || config.shouldListPasses())
    return mlir::asMainReturnCode(
        mlir::MlirOptMain(argc, argv, inputFile, outputFile, registry));
  // Pass options are parsed when the pipeline is built, and upstream
  // reports a bad one (`quantum=abc`, `bogus=1`) at an unknown location,
  // after LLVM's own line: build it once here first and say it plainly.
  // (Not with --dump-pass-pipeline: building the pipeline dumps it.)
  if (!config.shouldUseExplicitModule() && !config.shouldDumpPassPipeline()) {
    mlir::MLIRContext probe(registry, mlir::MLIRContext::Threading::DISABLED);
    mlir::PassManager pm(&probe, mlir::ModuleOp::getOperationName(),
                         mlir::OpPassManager::Nesting::Implicit);
    mlir::ScopedDiagnosticHandler report(&probe, [](mlir::Diagnostic &d) {
      std::string text = d.str();
      llvm::StringRef msg = llvm::StringRef(text).trim();
      if (!msg.empty())
        llvm::WithColor::error(llvm::errs(), "energy-opt") << msg << "\n";
      return mlir::success();
    });
    if (failed(config.setupPassPipeline(pm))) {
      llvm::WithColor::error(llvm::errs(), "energy-opt")
          << "invalid pass pipeline or pass options (see above); "
             "--help lists each pass's options\n";
      return 1;
    }
  }
  std::string err;
  std::unique_ptr<llvm::MemoryBuffer> input =
      energy::formats::readInput(inputFile, err);
  if (!input) {
    llvm::WithColor::error(llvm::errs(), "energy-opt")
        << inputFile << ": " << err << "\n";
    return 1;
  }
  // An empty file is an empty module (a warning, once, before any pass
  // reports that it found nothing). An empty standard input almost always
  // means the command before this one in a pipe failed: an error, and the
  // output (-o) is left as it was rather than replaced by an empty module.
  if (llvm::StringRef(input->getBuffer()).trim().empty()) {
    if (inputFile == "-") {
      llvm::WithColor::error(llvm::errs(), "energy-opt")
          << "standard input is empty (did the command before this one in "
             "a pipe fail?); nothing written\n";
      return 1;
    }
    llvm::WithColor::warning(llvm::errs(), "energy-opt")
        << "'" << inputFile << "' is empty\n";
  }
  // Text nested too deep for the parser is refused before it recurses;
  // deep text that is accepted is parsed on a deep stack
  // (tools/DeepInput.h).
  unsigned depth = 0;
  {
    llvm::SourceMgr sm;
    sm.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBuffer(input->getMemBufferRef(),
                                         /*RequiresNullTerminator=*/false),
        llvm::SMLoc());
    if (!energy::tools::checkNesting(sm, sm.getMainFileID(), depth))
      return 1;
  }
  // A file-size limit (ulimit -f) is an error to report, not a signal that
  // kills the tool mid-write (set here, after LLVM installed its handlers).
  std::signal(SIGXFSZ, SIG_IGN);
  std::string output = outputFile;
  // The passes' own outputs (report=) may not replace an input or -o; -o
  // may replace the input it rewrites (in place, as with mlir-opt), not a
  // file a pass reads. The passes' inputs are noted before anything runs,
  // so that an output a pass writes early is checked against a file a
  // later pass reads.
  energy::rt::AtomicFile::noteInput(inputFile);
  notePassInputs(argc, argv);
  if (!energy::rt::AtomicFile::claimOutput(output, "-o", inputFile, err)) {
    llvm::WithColor::error(llvm::errs(), "energy-opt") << err << "\n";
    return 1;
  }
  return energy::tools::onParseStack(depth, "energy-opt", [&] {
    if (energy::rt::writeAtomically(
            output,
            [&](llvm::raw_ostream &os) {
              return succeeded(
                  mlir::MlirOptMain(os, std::move(input), registry, config));
            },
            err))
      return 0;
    if (!err.empty())
      llvm::WithColor::error(llvm::errs(), "energy-opt") << err << "\n";
    return 1;
  });
}
