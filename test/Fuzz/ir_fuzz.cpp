//===- ir_fuzz.cpp - libFuzzer target for the energy and sched IR ---------===//
//
// Built by test/Fuzz/libfuzzer.sh (target `ir`): the dialects' parsers,
// verifiers and printers instrumented, linked with the passes and MLIR.
// For every input that parses and verifies:
//  - printing is a fixed point: print -> parse -> print is identical, in
//    the custom form and in the generic form (properties, `none` for an
//    absent optional signature);
//  - the pipelines of the README run without crashing: evaluate; context
//    propagation and reduction; expansion, timing, lowering and
//    evaluation; the frontier and a plan. A pass may refuse the input with
//    a diagnostic; it may not crash, trip a sanitizer, hang or leave IR
//    that does not verify.
// Scale is not what this target fuzzes: schedules whose generators declare
// more than 4,096 tasks (every integer of a generator counts as a factor,
// a bound that may overcount) are only parsed and printed (a 10^6-task
// pipeline is legitimately seconds of work; bench/RESULTS.md times those).
//
//===----------------------------------------------------------------------===//

#include "dialect/Energy/Energy.h"
#include "dialect/Sched/Sched.h"
#include "passes/Registration.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

using namespace mlir;

namespace {

MLIRContext &context() {
  static MLIRContext *ctx = [] {
    DialectRegistry registry;
    energy::registerAllEnergy(registry);
    auto *c = new MLIRContext(registry, MLIRContext::Threading::DISABLED);
    c->loadAllAvailableDialects();
    return c;
  }();
  return *ctx;
}

std::string print(Operation *op, bool generic) {
  std::string out;
  llvm::raw_string_ostream os(out);
  OpPrintingFlags flags;
  if (generic)
    flags.printGenericOpForm();
  op->print(os, flags);
  return out;
}

OwningOpRef<ModuleOp> parse(const std::string &text) {
  ParserConfig config(&context());
  return parseSourceString<ModuleOp>(text, config);
}

[[noreturn]] void finding(const char *what, const std::string &a,
                          const std::string &b) {
  std::fprintf(stderr, "ir_fuzz: %s\n--- first ---\n%s\n--- second ---\n%s\n",
               what, a.c_str(), b.c_str());
  std::abort();
}

void roundTrip(ModuleOp m, bool generic) {
  std::string first = print(m, generic);
  OwningOpRef<ModuleOp> again = parse(first);
  if (!again)
    finding(generic ? "the generic form does not parse back"
                    : "the printed form does not parse back",
            first, "");
  std::string second = print(*again, generic);
  if (first != second)
    finding(generic ? "generic print -> parse -> print differs"
                    : "print -> parse -> print differs",
            first, second);
}

/// Whether the schedule's generators (sched.pipeline's stages x
/// microbatches x chunks x data_parallel x tensor_parallel, twice for the
/// backward passes; sched.serve's requests and output lengths) declare at
/// most 4,096 tasks in all.
bool small(ModuleOp m) {
  constexpr uint64_t limit = 4096;
  uint64_t tasks = 0;
  auto mul = [&](uint64_t a, uint64_t b) {
    return b != 0 && a > limit / b ? limit + 1 : a * b;
  };
  m.walk([&](Operation *op) {
    StringRef name = op->getName().getStringRef();
    if (name != "sched.pipeline" && name != "sched.serve")
      return;
    uint64_t n = 1;
    for (NamedAttribute a : op->getAttrs())
      if (auto i = dyn_cast<IntegerAttr>(a.getValue()))
        if (!i.getType().isInteger(1))
          n = mul(n,
                  i.getValue().isNegative() || i.getValue().getActiveBits() > 32
                      ? limit + 1
                      : std::max<uint64_t>(1, i.getValue().getZExtValue()));
    if (auto reqs = op->getAttrOfType<ArrayAttr>("requests"))
      n = mul(n, std::max<uint64_t>(1, reqs.size()));
    tasks = std::min(limit + 1, tasks + mul(n, 2));
  });
  return tasks <= limit;
}

void run(ModuleOp m, StringRef pipeline) {
  OwningOpRef<ModuleOp> copy = cast<ModuleOp>(m->clone());
  PassManager pm(&context());
  // Verified here instead of by the pass manager: a pass's refusal is a
  // diagnostic, but a pass that writes IR the dialects reject is a finding.
  pm.enableVerifier(false);
  if (failed(parsePassPipeline(pipeline, pm)))
    finding("the harness's pipeline does not parse", pipeline.str(), "");
  bool ok = succeeded(pm.run(*copy));
  if (ok && failed(verify(*copy)))
    finding("a pipeline wrote IR that does not verify", pipeline.str(),
            print(*copy, true));
  if (std::getenv("IR_FUZZ_VERBOSE")) // replaying one input: what ran
    std::fprintf(stderr, "ir_fuzz: %s: %s\n", pipeline.str().c_str(),
                 ok ? "ok" : "refused");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  MLIRContext &ctx = context();
  // Diagnostics are the expected answer to bad input: swallowed here.
  ScopedDiagnosticHandler quiet(&ctx, [](Diagnostic &) { return success(); });
  std::string text(reinterpret_cast<const char *>(data), size);
  OwningOpRef<ModuleOp> m = parse(text);
  if (!m)
    return 0;
  roundTrip(*m, false);
  roundTrip(*m, true);
  if (!small(*m))
    return 0;
  run(*m, "builtin.module(energy-evaluate)");
  run(*m, "builtin.module(energy-propagate-context,energy-reduce,"
          "energy-evaluate)");
  run(*m, "builtin.module(sched-expand,sched-timing,sched-to-energy,"
          "energy-evaluate)");
  run(*m, "builtin.module(sched-expand,energy-frontier,"
          "energy-plan{max-slowdown=5},energy-emit-dvfs)");
  return 0;
}
