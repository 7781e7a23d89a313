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

LogicalResult checkValue(Operation *op, StringRef name, Attribute value) {
  auto fail = [&](const Twine &why) {
    return op->emitOpError("'") << name << "' " << why << "; got " << value;
  };
  if (auto f = dyn_cast<FloatAttr>(value)) {
    double v = f.getValueAsDouble();
    if (!std::isfinite(v))
      return fail("must be finite");
    if (llvm::is_contained({D::TrafficAttrHelper::getNameStr(),
                            D::IdleStaticAttrHelper::getNameStr(),
                            D::Delivery_JAttrHelper::getNameStr(),
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
    return success();
  }
  if (auto i = dyn_cast<IntegerAttr>(value)) {
    if (name == D::OutputTokensAttrHelper::getNameStr() &&
        i.getValue().isNegative())
      return fail("must be >= 0");
    return success();
  }
  if (name == D::DemandAttrHelper::getNameStr() ||
      name == D::CapacityAttrHelper::getNameStr()) {
    bool capacity = name == D::CapacityAttrHelper::getNameStr();
    for (NamedAttribute e : cast<DictionaryAttr>(value)) {
      auto f = dyn_cast<FloatAttr>(e.getValue());
      double v = f ? f.getValueAsDouble() : NAN;
      if (!f || !std::isfinite(v) || (capacity ? !(v > 0) : v < 0))
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
  check(getMethodAttrHelper());
  check(getDbAttrHelper());
  check(getModelAttrHelper());
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
