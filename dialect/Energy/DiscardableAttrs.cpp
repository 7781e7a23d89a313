//===- DiscardableAttrs.cpp - Verifying the energy.* attributes -----------===//
//
// The dialect declares its discardable attributes once, with their kinds
// (`discardableAttrs` in EnergyDialect.td, which also documents them).
// Every `energy.*` attribute on any op comes here: an undeclared name, an
// attribute of another kind, or a value out of its range is a located
// error, so a typo or an integer where a float belongs is never read as
// "absent".
//
//===----------------------------------------------------------------------===//

#include "dialect/Energy/Energy.h"

#include "mlir/IR/Diagnostics.h"

#include <cmath>

using namespace mlir;
using namespace energy;

namespace {

template <typename A> const char *kindName();
template <> const char *kindName<DictionaryAttr>() { return "a dictionary"; }
template <> const char *kindName<ArrayAttr>() { return "an array"; }
template <> const char *kindName<FloatAttr>() { return "a float"; }
template <> const char *kindName<IntegerAttr>() { return "an integer"; }
template <> const char *kindName<StringAttr>() { return "a string"; }
template <> const char *kindName<UnitAttr>() {
  return "a unit attribute (no value)";
}
template <> const char *kindName<FlatSymbolRefAttr>() {
  return "a symbol reference (@name)";
}
template <> const char *kindName<SignatureAttr>() { return "#energy.sig<...>"; }
template <> const char *kindName<OpPointAttr>() {
  return "#energy.op_point<...>";
}

/// Ranges of the numeric attributes (the rest only need their kind).
using D = EnergyDialect;

/// A float attribute's value; NaN (which fails every range check) for
/// anything else, or none.
double numberOf(Attribute a) {
  auto f = dyn_cast_or_null<FloatAttr>(a);
  return f ? f.getValueAsDouble() : NAN;
}

LogicalResult checkValue(Operation *op, StringRef name, Attribute value) {
  auto fail = [&](const Twine &why) {
    return op->emitOpError("'") << name << "' " << why << "; got " << value;
  };
  if (auto f = dyn_cast<FloatAttr>(value)) {
    double v = f.getValueAsDouble();
    if (!std::isfinite(v))
      return fail("must be finite");
    // (delivery_J may be negative: a step smaller than the null's from
    // idle, docs/CONTEXTS.md.)
    if (llvm::is_contained({D::TrafficAttrHelper::getNameStr(),
                            D::IdleStaticAttrHelper::getNameStr(),
                            D::BiasBound_JAttrHelper::getNameStr()},
                           name) &&
        v < 0)
      return fail("must be >= 0");
    if ((name == D::ResidencyAttrHelper::getNameStr() ||
         name == D::RouteFractionAttrHelper::getNameStr()) &&
        !(v >= 0 && v <= 1))
      return fail("must lie in [0, 1]");
    if (name == D::ContentionSlowdownAttrHelper::getNameStr() && !(v >= 1))
      return fail("must be >= 1");
    if (name == D::Measured_TAttrHelper::getNameStr() && !(v > 0))
      return fail("must be > 0 (s)");
    return success();
  }
  if (auto i = dyn_cast<IntegerAttr>(value)) {
    if (name == D::OutputTokensAttrHelper::getNameStr() &&
        i.getValue().isNegative())
      return fail("must be >= 0");
    return success();
  }
  // A device mechanism's parameters: known names only (a misspelt
  // "leakge" read as absent would change the energy silently), each a
  // finite float in its range, the required ones present.
  struct Param {
    StringRef key;
    bool required;
    double min; ///< inclusive lower bound
    bool positive;
  };
  auto mechanism = [&](ArrayRef<Param> params) -> LogicalResult {
    auto dict = cast<DictionaryAttr>(value);
    for (NamedAttribute e : dict) {
      const Param *p = llvm::find_if(
          params, [&](const Param &q) { return q.key == e.getName(); });
      if (p == params.end()) {
        std::string known;
        for (const Param &q : params)
          known += (known.empty() ? "" : ", ") + q.key.str();
        return op->emitOpError("'") << name << "' has an unknown parameter '"
                                    << e.getName().getValue()
                                    << "' (its parameters: " << known << ")";
      }
      double v = numberOf(e.getValue());
      if (!std::isfinite(v) || v < p->min || (p->positive && !(v > 0)))
        return op->emitOpError("'")
               << name << "' parameter '" << p->key << "' must be a finite "
               << (p->positive   ? "positive float"
                   : p->min == 0 ? "non-negative float"
                                 : "float")
               << "; got " << e.getValue();
    }
    for (const Param &p : params)
      if (p.required && !dict.get(p.key))
        return op->emitOpError("'") << name << "' needs '" << p.key << "'";
    return success();
  };
  constexpr double any = -INFINITY;
  if (name == D::ThermalAttrHelper::getNameStr())
    return mechanism({{"resistance", true, any, true},
                      {"capacitance", true, any, true},
                      {"ambient", true, -273.15, false},
                      {"reference", false, -273.15, false},
                      {"leakage", false, 0, false},
                      {"throttle_at", false, -273.15, false},
                      {"throttle_slope", false, 0, false}});
  if (name == D::CacheAttrHelper::getNameStr())
    return mechanism({{"l2_bytes", true, any, true}});
  if (name == D::MakespanAttrHelper::getNameStr())
    return mechanism({{"T_s", true, 0, false},
                      {"expected_T_s", true, 0, false},
                      {"sigma_T_s", true, 0, false},
                      {"std_error_s", false, 0, false}});
  if (name == D::PowerDeliveryAttrHelper::getNameStr())
    return mechanism({{"energy_per_watt", true, 0, false},
                      {"time_constant", true, any, true}});
  // A frontier: [T_s, E_J] or [T_s, E_J, lower_bound_J] points, finite,
  // T >= 0 and energies >= 0 (what --export-frontier and --export-svg read).
  if (name == D::FrontierAttrHelper::getNameStr()) {
    for (auto [i, pt] : llvm::enumerate(cast<ArrayAttr>(value))) {
      auto a = dyn_cast<ArrayAttr>(pt);
      bool ok = a && (a.size() == 2 || a.size() == 3);
      for (size_t k = 0; ok && k < a.size(); ++k)
        ok = std::isfinite(numberOf(a[k])) && numberOf(a[k]) >= 0;
      if (!ok)
        return op->emitOpError("'")
               << name << "' point " << i
               << " must be [T_s, E_J] or [T_s, E_J, lower_bound_J], "
                  "finite non-negative floats; got "
               << pt;
    }
    return success();
  }
  // The numbers of a plan or an evaluation's totals: finite non-negative
  // floats (a schedule of zero-length tasks has a plan of 0 s), a plan's
  // both present.
  if (name == D::PlanAttrHelper::getNameStr() ||
      name == D::TotalAttrHelper::getNameStr()) {
    auto dict = cast<DictionaryAttr>(value);
    for (StringRef key : {"T_s", "E_J"}) {
      Attribute a = dict.get(key);
      if (!a && name == D::PlanAttrHelper::getNameStr())
        return op->emitOpError("'") << name << "' needs '" << key << "'";
      if (!a)
        continue;
      double v = numberOf(a);
      if (!std::isfinite(v) || v < 0)
        return op->emitOpError("'") << name << "' '" << key
                                    << "' must be a finite non-negative "
                                       "float; got "
                                    << a;
    }
    return success();
  }
  // One gradient dictionary per option; that there is one per option the
  // task's verifier checks (it knows the options).
  if (name == D::OptionGradsAttrHelper::getNameStr()) {
    for (auto [i, g] : llvm::enumerate(cast<ArrayAttr>(value)))
      if (!isa<DictionaryAttr>(g))
        return op->emitOpError("'")
               << name << "' entry " << i
               << " must be a dictionary (an energy.grad); got " << g;
    return success();
  }
  if (name == D::DemandAttrHelper::getNameStr() ||
      name == D::CapacityAttrHelper::getNameStr()) {
    bool capacity = name == D::CapacityAttrHelper::getNameStr();
    for (NamedAttribute e : cast<DictionaryAttr>(value)) {
      double v = numberOf(e.getValue());
      if (!std::isfinite(v) || (capacity ? !(v > 0) : v < 0))
        return op->emitOpError("'")
               << name << "' entry '" << e.getName().getValue() << "' must be "
               << (capacity ? "a positive float (leave out a resource without "
                              "a limit)"
                            : "a non-negative float")
               << "; got " << e.getValue();
    }
  }
  return success();
}

} // namespace

LogicalResult EnergyDialect::verifyOperationAttribute(Operation *op,
                                                      NamedAttribute attr) {
  // The declared attribute of this name: is the value of its kind?
  std::optional<bool> ofKind;
  const char *kind = nullptr;
  auto check = [&](auto helper) {
    if (ofKind || helper.getName() != attr.getName())
      return;
    ofKind = helper.isAttrPresent(op);
    kind = kindName<decltype(helper.getAttr(op))>();
  };
  check(getThermalAttrHelper());
  check(getCacheAttrHelper());
  check(getPowerDeliveryAttrHelper());
  check(getCapacityAttrHelper());
  check(getSwitchAttrHelper());
  check(getDemandAttrHelper());
  check(getTrafficAttrHelper());
  check(getReusesAttrHelper());
  check(getWarmAttrHelper());
  check(getInsensitiveAttrHelper());
  check(getThermalSigsAttrHelper());
  check(getContentionSigsAttrHelper());
  check(getNullSigAttrHelper());
  check(getEntryTemperatureAttrHelper());
  check(getContentionSlowdownAttrHelper());
  check(getIdleStaticAttrHelper());
  check(getResidencyAttrHelper());
  check(getDelivery_JAttrHelper());
  check(getBiasBound_JAttrHelper());
  check(getNeedsCharacterizationAttrHelper());
  check(getEstimateAttrHelper());
  check(getTotalAttrHelper());
  check(getDeviationAttrHelper());
  check(getMakespanAttrHelper());
  check(getOutputTokensAttrHelper());
  check(getFrontierAttrHelper());
  check(getFrontierMethodAttrHelper());
  check(getFrontierThinningAttrHelper());
  check(getPlanAttrHelper());
  check(getDvfsAttrHelper());
  check(getPowerCapAttrHelper());
  check(getPowerCapChoiceAttrHelper());
  check(getSharedParamsAttrHelper());
  check(getGradAttrHelper());
  check(getOptionGradsAttrHelper());
  check(getMethodAttrHelper());
  check(getDbAttrHelper());
  check(getModelAttrHelper());
  check(getMeasured_TAttrHelper());
  check(getRequestsAttrHelper());
  check(getServePlanAttrHelper());
  check(getFleetAttrHelper());
  check(getRouteAttrHelper());
  check(getRouteFractionAttrHelper());
  check(getRouteReportAttrHelper());
  if (!ofKind)
    return op->emitOpError("has an unknown energy dialect attribute '")
           << attr.getName().getValue()
           << "' (the declared ones are listed in docs/reference/"
              "EnergyDialect.md, \"Discardable attributes\")";
  if (!*ofKind)
    return op->emitOpError("'") << attr.getName().getValue() << "' must be "
                                << kind << "; got " << attr.getValue();
  return checkValue(op, attr.getName().getValue(), attr.getValue());
}
