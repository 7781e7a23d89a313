//===- CApi.cpp - measure named regions of a running program --------------===//

#include "runtime/include/energy_rt.h"

#include "runtime/Characterize.h"
#include "runtime/Nvml.h"
#include "runtime/SimDevice.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <string>

using namespace energy::rt;

namespace {
struct Region {
  bool open = false;
  uint64_t startMj = 0;
  double startT = 0;
  unsigned count = 0;
  double sumE = 0, sumT = 0, sumE2 = 0, sumT2 = 0;
};

struct State {
  std::mutex mu;
  std::unique_ptr<Device> dev;
  SimDevice *sim = nullptr;
  double staticPower = 0;
  std::map<std::string, Region> regions;
  std::string error;
} state;

thread_local std::string lastError;

int fail(const std::string &msg) {
  lastError = msg;
  return -1;
}
} // namespace

extern "C" {

int er_rank(void) {
  for (const char *var :
       {"RANK", "LOCAL_RANK", "SLURM_PROCID", "OMPI_COMM_WORLD_RANK"})
    if (const char *v = std::getenv(var))
      return std::atoi(v);
  return 0;
}

int er_init(const char *device) {
  std::lock_guard<std::mutex> lock(state.mu);
  std::string name = device ? device : "";
  if (name.empty())
    if (const char *env = std::getenv("ENERGY_RT_DEVICE"))
      name = env;
  if (name.empty())
    return fail("no device: pass one or set ENERGY_RT_DEVICE");
  std::string err;
  if (name.rfind("sim:", 0) == 0) {
    SimParams p;
    if (!simParamsFor(name.substr(4), p))
      return fail("unknown simulated device '" + name + "'");
    auto sim = std::make_unique<SimDevice>(p, 1 + er_rank());
    state.sim = sim.get();
    state.dev = std::move(sim);
  } else if (name.rfind("cuda:", 0) == 0) {
    state.dev = openNvmlDevice(unsigned(std::atoi(name.c_str() + 5)), err);
    state.sim = nullptr;
    if (!state.dev)
      return fail(err);
  } else {
    return fail("unknown device '" + name + "'");
  }
  ProtocolOptions opts;
  if (!measureStaticPower(*state.dev, opts, state.staticPower, err))
    return fail(err);
  state.regions.clear();
  return 0;
}

int er_begin(const char *name) {
  std::lock_guard<std::mutex> lock(state.mu);
  if (!state.dev)
    return fail("er_begin before er_init");
  Region &r = state.regions[name];
  if (r.open)
    return fail(std::string("region '") + name + "' is already open");
  r.open = true;
  r.startMj = state.dev->energyCounterMilliJoules();
  r.startT = state.dev->now();
  return 0;
}

int er_end(const char *name) {
  std::lock_guard<std::mutex> lock(state.mu);
  if (!state.dev)
    return fail("er_end before er_init");
  auto it = state.regions.find(name);
  if (it == state.regions.end() || !it->second.open)
    return fail(std::string("region '") + name + "' is not open");
  Region &r = it->second;
  double E = double(state.dev->energyCounterMilliJoules() - r.startMj) * 1e-3;
  double T = state.dev->now() - r.startT;
  r.open = false;
  ++r.count;
  r.sumE += E;
  r.sumT += T;
  r.sumE2 += E * E;
  r.sumT2 += T * T;
  return 0;
}

int er_result(const char *name, double *energy_j, double *time_s,
              unsigned *count) {
  std::lock_guard<std::mutex> lock(state.mu);
  auto it = state.regions.find(name);
  if (it == state.regions.end())
    return fail(std::string("no region '") + name + "'");
  if (energy_j)
    *energy_j = it->second.sumE;
  if (time_s)
    *time_s = it->second.sumT;
  if (count)
    *count = it->second.count;
  return 0;
}

int er_flush(const char *path) {
  std::lock_guard<std::mutex> lock(state.mu);
  if (!state.dev)
    return fail("er_flush before er_init");
  std::string p = path ? path : "";
  size_t at = p.find("%r");
  if (at != std::string::npos)
    p.replace(at, 2, std::to_string(er_rank()));
  std::vector<Measurement> entries;
  for (auto &[name, r] : state.regions) {
    if (!r.count)
      continue;
    double n = r.count;
    double meanT = r.sumT / n, meanE = r.sumE / n;
    Measurement m;
    m.key = name;
    m.smMhz = state.dev->currentSmClock();
    m.s = state.staticPower;
    m.T = meanT;
    m.d = std::max(0.0, meanE - state.staticPower * meanT);
    m.varT = n > 1 ? std::max(0.0, (r.sumT2 - n * meanT * meanT) / (n - 1)) : 0;
    double varE = n > 1 ? std::max(0.0, (r.sumE2 - n * meanE * meanE) / (n - 1)) : 0;
    m.varD = std::max(0.0, varE - m.s * m.s * m.varT);
    m.runs = r.count;
    entries.push_back(m);
  }
  FILE *f = std::fopen(p.c_str(), "w");
  if (!f)
    return fail("cannot write '" + p + "'");
  std::string json = signatureDbJson(
      state.dev->identity(), entries, state.sim ? "simulated" : "measured");
  std::fwrite(json.data(), 1, json.size(), f);
  std::fclose(f);
  return 0;
}

void er_shutdown(void) {
  std::lock_guard<std::mutex> lock(state.mu);
  state.dev.reset();
  state.sim = nullptr;
  state.regions.clear();
}

const char *er_last_error(void) { return lastError.c_str(); }

int er_sim_run(double flops, double bytes) {
  std::lock_guard<std::mutex> lock(state.mu);
  if (!state.sim)
    return fail("er_sim_run needs a simulated device");
  state.sim->run(KernelSpec{"user", flops, bytes});
  return 0;
}

} // extern "C"
