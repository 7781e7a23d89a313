//===- Route.cpp - --energy-route -----------------------------------------===//
//
// A thin caller: the fleet file's reader is runtime/formats/Fleet, the
// policies calculus/Routing; this writes shares and requests into the
// endpoints.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include <algorithm>

#include "calculus/Routing.h"
#include "passes/FleetSource.h"

#include "mlir/IR/Builders.h"

#include <map>

namespace energy {
#define GEN_PASS_DEF_ENERGYROUTE
#include "passes/Passes.h.inc"
} // namespace energy

using namespace mlir;
using namespace energy;
using namespace energy::sched;
namespace rt = energy::calculus::routing;

namespace {
struct EnergyRoutePass : public energy::impl::EnergyRouteBase<EnergyRoutePass> {
  using EnergyRouteBase::EnergyRouteBase;

  void runOnOperation() override {
    FleetSource source(fleet, "energy-route");
    if (failed(forEachRequestStream(getOperation(), "energy-route",
                                    "the request stream to route",
                                    [&](ScheduleOp sched, ArrayAttr requests) {
                                      return route(sched, requests, source);
                                    })))
      signalPassFailure();
  }

  LogicalResult route(ScheduleOp sched, ArrayAttr requests,
                      FleetSource &source) {
    auto fail = [&](Location loc, const Twine &msg) {
      mlir::emitError(loc, "energy-route: ") << msg;
      return failure();
    };
    formats::FleetFile ff;
    std::string err, from;
    if (failed(source.get(sched, ff, from)))
      return failure();
    // The policy: named, else the first variance-aware, else the first.
    int chosen = -1;
    for (size_t i = 0; i < ff.policies.size(); ++i)
      if ((!policy.empty() && ff.policies[i].name == policy) ||
          (policy.empty() && chosen < 0 &&
           ff.policies[i].kind == rt::PolicyKind::VarianceAware))
        chosen = int(i);
    if (chosen < 0 && !policy.empty()) {
      std::string names;
      for (const rt::Policy &p : ff.policies)
        names += (names.empty() ? "" : ", ") + p.name;
      return fail(sched.getLoc(),
                  from + ": no policy '" + policy + "' (it has " + names + ")");
    }
    if (chosen < 0)
      chosen = 0;
    std::vector<std::vector<std::vector<double>>> splits;
    if (!rt::resolvePolicies(ff.fleet, ff.policies, ff.matchQualityOf,
                             double(ff.simulation.horizon), splits, err))
      return fail(sched.getLoc(), from + ": " + err);
    // One split (a supply trace: its long-run average).
    size_t k = ff.fleet.models.size();
    std::vector<double> share(k, 0.0);
    for (const auto &s : splits[size_t(chosen)])
      for (size_t i = 0; i < k; ++i)
        share[i] += s[i] / double(splits[size_t(chosen)].size());

    Builder b(&getContext());
    std::map<std::string, ServeOp> endpoints;
    for (ServeOp serve : sched.getBody().getOps<ServeOp>())
      endpoints[serve.getSymName().str()] = serve;
    std::vector<ServeOp> byModel(k);
    for (size_t i = 0; i < k; ++i) {
      auto it = endpoints.find(ff.fleet.models[i].name);
      if (it == endpoints.end() && endpoints.empty() && i == 0 &&
          !sched.getBody().getOps<TaskOp>().empty())
        return fail(sched.getLoc(),
                    "the schedule has tasks and no sched.serve: route before "
                    "--sched-expand (the endpoints' requests are dealt to "
                    "their sched.serve ops)");
      if (it == endpoints.end())
        return fail(sched.getLoc(), "no sched.serve @" +
                                        ff.fleet.models[i].name +
                                        " for the fleet's model of that "
                                        "name");
      byModel[i] = it->second;
      endpoints.erase(it);
    }
    if (!endpoints.empty())
      return fail(endpoints.begin()->second.getLoc(),
                  "@" + endpoints.begin()->first +
                      " is not a model of the fleet (" + from + ")");
    // Weighted round robin: each request to the endpoint furthest behind
    // its share (credit += share per request, the winner pays 1).
    // In arrival order (the stream may list them in any order; an endpoint
    // admits its requests in list order): stable, so that simultaneous
    // arrivals keep theirs.
    auto arrival = [](Attribute r) {
      auto a = dyn_cast<ArrayAttr>(r);
      if (!a || a.empty())
        return 0.0;
      if (auto f = dyn_cast<FloatAttr>(a[0]))
        return f.getValueAsDouble();
      if (auto i = dyn_cast<IntegerAttr>(a[0]))
        return double(i.getInt());
      return 0.0;
    };
    SmallVector<Attribute> ordered(requests.begin(), requests.end());
    std::stable_sort(
        ordered.begin(), ordered.end(),
        [&](Attribute a, Attribute b) { return arrival(a) < arrival(b); });
    std::vector<SmallVector<Attribute>> dealt(k);
    std::vector<double> credit(k, 0.0);
    for (Attribute r : ordered) {
      for (size_t i = 0; i < k; ++i)
        credit[i] += share[i];
      size_t best = 0;
      for (size_t i = 1; i < k; ++i)
        if (credit[i] > credit[best])
          best = i;
      credit[best] -= 1;
      dealt[best].push_back(r);
    }
    for (size_t i = 0; i < k; ++i) {
      ServeOp serve = byModel[i];
      serve.setRequestsAttr(b.getArrayAttr(dealt[i]));
      serve.removeNumRequestsAttr();
      serve.removeArrivalRateAttr();
      serve.removePromptMinAttr();
      serve.removePromptMaxAttr();
      serve.removeOutputMinAttr();
      serve.removeOutputMaxAttr();
      // A share summed over the split's steps can round past 1 (or below
      // 0) in the last bit; it is a fraction.
      serve->setAttr(EnergyDialect::RouteFractionAttrHelper::getNameStr(),
                     b.getF64FloatAttr(std::clamp(share[i], 0.0, 1.0)));
    }
    sched->setAttr(
        EnergyDialect::RouteAttrHelper::getNameStr(),
        b.getDictionaryAttr(
            {b.getNamedAttr("policy",
                            b.getStringAttr(ff.policies[size_t(chosen)].name)),
             b.getNamedAttr("quality", b.getF64FloatAttr(rt::splitsMeanQuality(
                                           ff.fleet, splits[size_t(chosen)]))),
             b.getNamedAttr("requests",
                            b.getI64IntegerAttr(int64_t(requests.size())))}));
    return success();
  }
};
} // namespace
