//===- Frontier.cpp - --energy-frontier -----------------------------------===//
//
// A thin pass: the frontier is calculus/DagFrontier.h (passes/
// FrontierSupport.h reads the operating sets); this file thins it by error
// and writes it on the schedule as `energy.frontier`. energy-translate
// --export-frontier writes the file.
//
//===----------------------------------------------------------------------===//

#include "calculus/DagFrontier.h"
#include "dialect/Energy/Energy.h"
#include "dialect/Sched/SchedGraph.h"
#include "passes/FrontierSupport.h"
#include "passes/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <limits>

namespace energy {
#define GEN_PASS_DEF_ENERGYFRONTIER
#include "passes/Passes.h.inc"
} // namespace energy

using namespace mlir;
using namespace energy;
using namespace energy::sched;

namespace {

struct EnergyFrontierPass
    : public energy::impl::EnergyFrontierBase<EnergyFrontierPass> {
  using EnergyFrontierBase::EnergyFrontierBase;
  void runOnOperation() override {
    energy::warnNestedSchedules(getOperation(), "energy-frontier");
    Builder b(&getContext());
    if (!(quantum >= 0) || !(step >= 0) || !std::isfinite(quantum) ||
        !std::isfinite(step)) {
      mlir::emitError(moduleErrorLoc(getOperation()),
                      "energy-frontier: quantum and step must be finite and "
                      "non-negative (s)");
      return signalPassFailure();
    }
    for (ScheduleOp sched : getOperation().getOps<ScheduleOp>()) {
      if (sched.hasNoWork()) {
        mlir::emitWarning(sched.getLoc(), "energy-frontier: @")
            << sched.getSymName() << " has no tasks: it has no frontier";
        continue;
      }
      FailureOr<Choices> c = Choices::build(sched);
      if (failed(c))
        return signalPassFailure();
      if (!(maxError >= 0)) {
        sched.emitOpError("energy-frontier: max-error must be >= 0");
        return signalPassFailure();
      }
      calculus::DagFrontierResult method;
      auto front = computeFrontier(sched, *c, step, quantum, crashBudget,
                                   classSweepAbove, convexAbove, false, method);
      if (failed(front))
        return signalPassFailure();
      // Thinning by error, not by count: a point is dropped only while the
      // last kept one (faster, dearer) is within max-error of it, so at
      // every makespan the thinned frontier's best point is within
      // max-error of the full one's. The last (energy-minimal) point stays.
      std::vector<calculus::DagPoint> kept;
      for (size_t i = 0; i < front->size(); ++i) {
        const calculus::DagPoint &p = (*front)[i];
        if (kept.empty() || i + 1 == front->size() ||
            kept.back().E > p.E * (1 + maxError))
          kept.push_back(p);
      }
      // A count limit on top: at most `points`, evenly spaced in the kept
      // list and always its first (fastest) and, from two on, its last
      // (energy-minimal) point (the error is then said below).
      std::vector<size_t> pick;
      size_t limit = points ? size_t(unsigned(points)) : kept.size();
      if (limit >= kept.size()) {
        for (size_t i = 0; i < kept.size(); ++i)
          pick.push_back(i);
      } else if (limit == 1) {
        pick.push_back(0);
      } else {
        for (size_t k = 0; k < limit; ++k) {
          size_t i = (k * (kept.size() - 1) + (limit - 1) / 2) / (limit - 1);
          if (pick.empty() || i > pick.back())
            pick.push_back(i);
        }
      }
      SmallVector<Attribute> pts;
      std::vector<std::pair<double, double>> thinned;
      std::vector<double> bound; // each kept point's certified lower bound
      for (size_t i : pick) {
        thinned.push_back({kept[i].T, kept[i].E});
        bound.push_back(kept[i].lowerBound);
      }
      double worst = 0; // the thinned frontier's error at the full's points
      for (const calculus::DagPoint &p : *front) {
        double best = INFINITY;
        for (auto &[T, E] : thinned)
          if (T <= p.T * (1 + 1e-12))
            best = std::min(best, E);
        worst = std::max(worst, best / p.E - 1);
      }
      // [T, E, lower bound] where the point is certified, else [T, E].
      for (size_t i = 0; i < thinned.size(); ++i)
        pts.push_back(
            std::isnan(bound[i])
                ? b.getF64ArrayAttr({thinned[i].first, thinned[i].second})
                : b.getF64ArrayAttr(
                      {thinned[i].first, thinned[i].second, bound[i]}));
      sched->setAttr(EnergyDialect::FrontierAttrHelper::getNameStr(),
                     b.getArrayAttr(pts));
      sched->setAttr(
          EnergyDialect::FrontierThinningAttrHelper::getNameStr(),
          b.getDictionaryAttr(
              {b.getNamedAttr("full_points",
                              b.getI64IntegerAttr(int64_t(front->size()))),
               b.getNamedAttr("kept_points",
                              b.getI64IntegerAttr(int64_t(thinned.size()))),
               b.getNamedAttr("max_error", b.getF64FloatAttr(worst))}));
    }
  }
};

} // namespace
