//===- Contexts.cpp - The IR of entry and runtime contexts ----------------===//

#include "dialect/Energy/Contexts.h"

using namespace mlir;

namespace energy {

FailureOr<DenseMap<StringAttr, DeviceModels>>
readDeviceModels(ModuleOp module) {
  DenseMap<StringAttr, DeviceModels> out;
  bool bad = false;
  module.walk([&](DeviceOp dev) {
    DeviceModels info;
    calculus::DeviceMechanisms &mech = info.mechanisms;
    mech.staticPower = dev.getStaticPower().convertToDouble();
    // A float of a mechanism's parameter dictionary; errors name both.
    auto get = [&](DictionaryAttr dict, StringRef name, StringRef key,
                   double &slot, bool required) {
      Attribute a = dict.get(key);
      if (!a) {
        if (required) {
          dev.emitOpError(name) << " needs '" << key << "'";
          bad = true;
        }
        return;
      }
      auto f = dyn_cast<FloatAttr>(a);
      if (!f) {
        dev.emitOpError(name) << " '" << key << "' must be a float";
        bad = true;
        return;
      }
      slot = f.getValueAsDouble();
    };
    if (auto th = dev->getAttrOfType<DictionaryAttr>(
            EnergyDialect::ThermalAttrHelper::getNameStr())) {
      calculus::ThermalModel m;
      StringRef n = EnergyDialect::ThermalAttrHelper::getNameStr();
      get(th, n, "resistance", m.resistance, true);
      get(th, n, "capacitance", m.capacitance, true);
      get(th, n, "ambient", m.ambient, true);
      m.reference = m.ambient;
      get(th, n, "reference", m.reference, false);
      get(th, n, "leakage", m.leakage, false);
      get(th, n, "throttle_at", m.throttleAt, false);
      get(th, n, "throttle_slope", m.throttleSlope, false);
      if (!bad && (!(m.resistance > 0) || !(m.capacitance > 0))) {
        dev.emitOpError("energy.thermal resistance and capacitance must be "
                        "positive");
        bad = true;
      }
      mech.thermal = m;
    }
    if (auto c = dev->getAttrOfType<DictionaryAttr>(
            EnergyDialect::CacheAttrHelper::getNameStr())) {
      calculus::CacheModel m;
      get(c, EnergyDialect::CacheAttrHelper::getNameStr(), "l2_bytes",
          m.capacity, true);
      if (!bad && !(m.capacity > 0)) {
        dev.emitOpError("energy.cache l2_bytes must be positive");
        bad = true;
      }
      mech.cache = m;
    }
    if (auto pd = dev->getAttrOfType<DictionaryAttr>(
            EnergyDialect::PowerDeliveryAttrHelper::getNameStr())) {
      calculus::PowerDeliveryModel m;
      StringRef n = EnergyDialect::PowerDeliveryAttrHelper::getNameStr();
      get(pd, n, "energy_per_watt", m.energyPerWatt, true);
      get(pd, n, "time_constant", m.timeConstant, true);
      if (!bad && (!(m.energyPerWatt >= 0) || !(m.timeConstant > 0))) {
        dev.emitOpError("energy.power_delivery needs energy_per_watt >= 0 "
                        "and time_constant > 0");
        bad = true;
      }
      mech.delivery = m;
    }
    info.capacity = dev->getAttrOfType<DictionaryAttr>(
        EnergyDialect::CapacityAttrHelper::getNameStr());
    out[dev.getSymNameAttr()] = info;
  });
  if (bad)
    return failure();
  return out;
}

} // namespace energy
