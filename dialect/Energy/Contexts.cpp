//===- Contexts.cpp - The IR of entry and runtime contexts ----------------===//

#include "dialect/Energy/Contexts.h"

using namespace mlir;

namespace energy {

FailureOr<DenseMap<StringAttr, DeviceModels>>
readDeviceModels(ModuleOp module) {
  DenseMap<StringAttr, DeviceModels> out;
  module.walk([&](DeviceOp dev) {
    DeviceModels info;
    calculus::DeviceMechanisms &mech = info.mechanisms;
    mech.staticPower = dev.getStaticPower().convertToDouble();
    // The dialect's verifier has checked each mechanism's parameters (known
    // names, finite, in range, the required ones present:
    // DiscardableAttrs.cpp); an optional one keeps its default.
    auto get = [](DictionaryAttr dict, StringRef key, double &slot) {
      if (auto f = dict.getAs<FloatAttr>(key))
        slot = f.getValueAsDouble();
    };
    if (auto th = dev->getAttrOfType<DictionaryAttr>(
            EnergyDialect::ThermalAttrHelper::getNameStr())) {
      calculus::ThermalModel m;
      get(th, "resistance", m.resistance);
      get(th, "capacitance", m.capacitance);
      get(th, "ambient", m.ambient);
      m.reference = m.ambient;
      get(th, "reference", m.reference);
      get(th, "leakage", m.leakage);
      get(th, "throttle_at", m.throttleAt);
      get(th, "throttle_slope", m.throttleSlope);
      mech.thermal = m;
    }
    if (auto c = dev->getAttrOfType<DictionaryAttr>(
            EnergyDialect::CacheAttrHelper::getNameStr())) {
      calculus::CacheModel m;
      get(c, "l2_bytes", m.capacity);
      mech.cache = m;
    }
    if (auto pd = dev->getAttrOfType<DictionaryAttr>(
            EnergyDialect::PowerDeliveryAttrHelper::getNameStr())) {
      calculus::PowerDeliveryModel m;
      get(pd, "energy_per_watt", m.energyPerWatt);
      get(pd, "time_constant", m.timeConstant);
      mech.delivery = m;
    }
    info.capacity = dev->getAttrOfType<DictionaryAttr>(
        EnergyDialect::CapacityAttrHelper::getNameStr());
    out[dev.getSymNameAttr()] = info;
  });
  return out;
}

} // namespace energy
