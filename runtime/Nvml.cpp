//===- Nvml.cpp - NVML loaded at run time ---------------------------------===//

#include "runtime/Nvml.h"

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <dlfcn.h>
#include <string>
#include <unistd.h>
#include <vector>

namespace energy {
namespace rt {

namespace {
using nvmlReturn_t = int;
using nvmlDevice_t = struct nvmlDevice_st *;
constexpr nvmlReturn_t NVML_SUCCESS = 0;
constexpr int NVML_TEMPERATURE_GPU = 0;

struct Api {
  void *lib = nullptr;
  nvmlReturn_t (*init)() = nullptr;
  nvmlReturn_t (*shutdown)() = nullptr;
  nvmlReturn_t (*handleByIndex)(unsigned, nvmlDevice_t *) = nullptr;
  nvmlReturn_t (*name)(nvmlDevice_t, char *, unsigned) = nullptr;
  nvmlReturn_t (*totalEnergy)(nvmlDevice_t, unsigned long long *) = nullptr;
  nvmlReturn_t (*powerUsage)(nvmlDevice_t, unsigned *) = nullptr;
  nvmlReturn_t (*temperature)(nvmlDevice_t, int, unsigned *) = nullptr;
  nvmlReturn_t (*supportedGraphicsClocks)(nvmlDevice_t, unsigned, unsigned *,
                                          unsigned *) = nullptr;
  nvmlReturn_t (*clockInfo)(nvmlDevice_t, int, unsigned *) = nullptr;
  nvmlReturn_t (*setLockedClocks)(nvmlDevice_t, unsigned, unsigned) = nullptr;
  nvmlReturn_t (*resetLockedClocks)(nvmlDevice_t) = nullptr;
  nvmlReturn_t (*limitConstraints)(nvmlDevice_t, unsigned *,
                                   unsigned *) = nullptr; // mW
  nvmlReturn_t (*limit)(nvmlDevice_t, unsigned *) = nullptr;
  nvmlReturn_t (*defaultLimit)(nvmlDevice_t, unsigned *) = nullptr;
  nvmlReturn_t (*setLimit)(nvmlDevice_t, unsigned) = nullptr;
  const char *(*errorString)(nvmlReturn_t) = nullptr;

  std::string describe(nvmlReturn_t r) const {
    return errorString ? errorString(r) : ("NVML error " + std::to_string(r));
  }
};

template <typename F>
bool resolve(void *lib, const char *sym, F &slot, std::string &err) {
  slot = reinterpret_cast<F>(dlsym(lib, sym));
  if (!slot) {
    err = std::string("libnvidia-ml.so.1 lacks ") + sym;
    return false;
  }
  return true;
}

class NvmlDevice : public Device {
public:
  NvmlDevice(Api functions, nvmlDevice_t h) : api(functions), handle(h) {
    // Cached so that the signal-time restore makes a single NVML call.
    if (api.defaultLimit(handle, &defaultMilliWatts) != NVML_SUCCESS)
      defaultMilliWatts = 0;
  }
  ~NvmlDevice() override {
    if (api.shutdown)
      api.shutdown();
  }
  unsigned index = 0; ///< NVML's device index (reopened by "cuda:<index>")
  std::string reopenName() const override {
    return "cuda:" + std::to_string(index);
  }
  std::string identity() const override {
    char buf[96] = {0};
    if (api.name(handle, buf, sizeof(buf)) != NVML_SUCCESS)
      return "nvml:unknown";
    return std::string("nvml:") + buf;
  }
  std::vector<int> supportedSmClocks() const override {
    unsigned memClock = 0, count = 256, clocks[256];
    std::vector<int> out;
    // Memory clock 0 is not valid; query the current memory clock first.
    api.clockInfo(handle, /*NVML_CLOCK_MEM=*/2, &memClock);
    if (api.supportedGraphicsClocks(handle, memClock, &count, clocks) ==
        NVML_SUCCESS)
      for (unsigned i = 0; i < count; ++i)
        out.push_back(int(clocks[i]));
    return out;
  }
  int currentSmClock() const override {
    unsigned c = 0;
    api.clockInfo(handle, /*NVML_CLOCK_SM=*/1, &c);
    return int(c);
  }
  bool setSmClock(int mhz, std::string &err) override {
    nvmlReturn_t r = api.setLockedClocks(handle, unsigned(mhz), unsigned(mhz));
    if (r != NVML_SUCCESS) {
      err = "nvmlDeviceSetGpuLockedClocks: " + api.describe(r);
      return false;
    }
    clockChanged = true;
    if (onChanged)
      onChanged(*this);
    return true;
  }
  bool resetSmClock(std::string &err) override {
    nvmlReturn_t r = api.resetLockedClocks(handle);
    if (r != NVML_SUCCESS) {
      if (inSignalRestore()) { // async-signal-safe: no strings
        static const char msg[] = "energy_rt: nvmlDeviceResetGpuLockedClocks "
                                  "failed while restoring on a signal\n";
        (void)!write(STDERR_FILENO, msg, sizeof msg - 1);
        return false;
      }
      err = "nvmlDeviceResetGpuLockedClocks: " + api.describe(r);
      return false;
    }
    return true;
  }
  bool powerLimits(PowerLimits &out, std::string &err) const override {
    unsigned lo = 0, hi = 0, cur = 0;
    nvmlReturn_t r = api.limitConstraints(handle, &lo, &hi);
    if (r == NVML_SUCCESS)
      r = api.limit(handle, &cur);
    if (r != NVML_SUCCESS || !defaultMilliWatts) {
      err = "nvmlDeviceGetPowerManagementLimit: " +
            (r != NVML_SUCCESS ? api.describe(r)
                               : std::string("no default limit reported"));
      return false;
    }
    out = {lo / 1e3, hi / 1e3, defaultMilliWatts / 1e3, cur / 1e3};
    return true;
  }
  bool setPowerLimit(double watts, std::string &err) override {
    unsigned before = 0;
    bool known =
        !powerLimitChanged && api.limit(handle, &before) == NVML_SUCCESS;
    nvmlReturn_t r = api.setLimit(handle, unsigned(std::lround(watts * 1e3)));
    if (r != NVML_SUCCESS) {
      err = "nvmlDeviceSetPowerManagementLimit: " + api.describe(r);
      return false;
    }
    if (!powerLimitChanged) {
      priorPowerLimitW = known ? before / 1e3 : 0;
      powerLimitChanged = true;
    }
    if (onChanged)
      onChanged(*this);
    return true;
  }
  bool resetPowerLimit(std::string &err) override {
    unsigned cur = 0, want = priorPowerLimitW > 0
                                 ? unsigned(std::lround(priorPowerLimitW * 1e3))
                                 : defaultMilliWatts;
    if (!want || (api.limit(handle, &cur) == NVML_SUCCESS && cur == want))
      return true; // nothing to undo (and no privilege needed)
    nvmlReturn_t r = api.setLimit(handle, want);
    if (r != NVML_SUCCESS) {
      if (inSignalRestore()) {
        static const char msg[] = "energy_rt: restoring the power limit "
                                  "failed on a signal\n";
        (void)!write(STDERR_FILENO, msg, sizeof msg - 1);
        return false;
      }
      err = "nvmlDeviceSetPowerManagementLimit (restore): " + api.describe(r);
      return false;
    }
    return true;
  }
  uint64_t energyCounterMilliJoules() override {
    unsigned long long mj = 0;
    api.totalEnergy(handle, &mj);
    return mj;
  }
  double temperature() override {
    unsigned t = 0;
    api.temperature(handle, NVML_TEMPERATURE_GPU, &t);
    return t;
  }
  double now() override {
    return std::chrono::duration<double>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
  double run(const KernelSpec &) override {
    return -1; // NVML alone runs no kernels: CudaDevice (runtime/kernels)
  }
  void idle(double seconds) override {
    auto until = std::chrono::steady_clock::now() +
                 std::chrono::duration<double>(seconds);
    while (std::chrono::steady_clock::now() < until) {
    }
  }

private:
  Api api;
  nvmlDevice_t handle;
  unsigned defaultMilliWatts = 0;
};
} // namespace

/// The NVML index of the GPU whose UUID starts with `uuid` (a whole one or
/// a prefix naming one GPU); `what` names it in errors.
static bool nvmlIndexOfUuid(const std::string &uuid, unsigned &nvml,
                            const std::string &what, std::string &err) {
  void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char *why = dlerror();
    err = what + ": cannot load libnvidia-ml.so.1 to find it (" +
          (why ? why : "unknown error") + ")";
    return false;
  }
  nvmlReturn_t (*init)() = nullptr, (*shutdown)() = nullptr;
  nvmlReturn_t (*count)(unsigned *) = nullptr;
  nvmlReturn_t (*handleByIndex)(unsigned, nvmlDevice_t *) = nullptr;
  nvmlReturn_t (*uuidOf)(nvmlDevice_t, char *, unsigned) = nullptr;
  if (!resolve(lib, "nvmlInit_v2", init, err) ||
      !resolve(lib, "nvmlShutdown", shutdown, err) ||
      !resolve(lib, "nvmlDeviceGetCount_v2", count, err) ||
      !resolve(lib, "nvmlDeviceGetHandleByIndex_v2", handleByIndex, err) ||
      !resolve(lib, "nvmlDeviceGetUUID", uuidOf, err)) {
    err = what + ": " + err;
    return false;
  }
  if (init() != NVML_SUCCESS) {
    err = what + ": nvmlInit_v2 failed";
    return false;
  }
  unsigned n = 0, found = 0;
  std::string match;
  if (count(&n) == NVML_SUCCESS)
    for (unsigned i = 0; i < n; ++i) {
      nvmlDevice_t h = nullptr;
      char buf[96] = {0};
      if (handleByIndex(i, &h) != NVML_SUCCESS ||
          uuidOf(h, buf, sizeof buf) != NVML_SUCCESS)
        continue;
      if (std::string(buf).rfind(uuid, 0) == 0) {
        nvml = i;
        match = buf;
        ++found;
      }
    }
  shutdown();
  if (found == 1)
    return true;
  err = what + (found ? ": names " + std::to_string(found) +
                            " GPUs (a UUID prefix must name one)"
                      : ": no GPU of the " + std::to_string(n) +
                            " NVML sees has that UUID");
  return false;
}

bool nvmlIndexOfCuda(unsigned cuda, unsigned &nvml, std::string &err) {
  const char *visible = std::getenv("CUDA_VISIBLE_DEVICES");
  if (!visible) {
    nvml = cuda;
    return true;
  }
  std::vector<std::string> listed;
  std::string item;
  for (const char *p = visible;; ++p) {
    if (*p == ',' || *p == 0) {
      size_t a = item.find_first_not_of(" \t"),
             b = item.find_last_not_of(" \t");
      listed.push_back(a == std::string::npos ? "" : item.substr(a, b - a + 1));
      item.clear();
      if (*p == 0)
        break;
    } else {
      item += *p;
    }
  }
  std::string shown = std::string("CUDA_VISIBLE_DEVICES='") + visible + "'";
  if (listed.size() == 1 && listed[0].empty()) {
    err = shown + ": this process sees no GPU";
    return false;
  }
  if (cuda >= listed.size()) {
    err = "cuda:" + std::to_string(cuda) + ": " + shown + " lists " +
          std::to_string(listed.size()) + " GPU(s)";
    return false;
  }
  const std::string &it = listed[cuda];
  std::string what =
      "cuda:" + std::to_string(cuda) + " is '" + it + "' of " + shown;
  // A GPU named by its UUID (or a unique prefix of it, as CUDA accepts):
  // found among NVML's GPUs by theirs. A MIG instance is refused: NVML's
  // energy counter is the whole GPU's, other instances' work included.
  if (it.rfind("GPU-", 0) == 0)
    return nvmlIndexOfUuid(it, nvml, what, err);
  if (it.rfind("MIG-", 0) == 0) {
    err = what + ": a MIG instance, whose energy NVML does not count apart "
                 "from the other instances of its GPU; measure a whole GPU";
    return false;
  }
  char *end = nullptr;
  errno = 0;
  unsigned long i = std::strtoul(it.c_str(), &end, 10);
  if (it.empty() || !std::isdigit((unsigned char)it[0]) || *end != 0 ||
      errno != 0 || i > 4095) {
    err = what + ": neither a GPU index nor a GPU UUID (GPU-...)";
    return false;
  }
  nvml = unsigned(i);
  return true;
}

std::unique_ptr<Device> openNvmlDevice(unsigned index, std::string &err) {
  Api api;
  api.lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!api.lib) {
    const char *why = dlerror();
    err = std::string("cannot load libnvidia-ml.so.1 (no NVIDIA driver?): ") +
          (why ? why : "unknown error") +
          "; without a GPU, a simulated one: ENERGY_RT_DEVICE=sim:a100 "
          "(sim:h100, sim:a40, ...)";
    return nullptr;
  }
  if (!resolve(api.lib, "nvmlInit_v2", api.init, err) ||
      !resolve(api.lib, "nvmlShutdown", api.shutdown, err) ||
      !resolve(api.lib, "nvmlDeviceGetHandleByIndex_v2", api.handleByIndex,
               err) ||
      !resolve(api.lib, "nvmlDeviceGetName", api.name, err) ||
      !resolve(api.lib, "nvmlDeviceGetTotalEnergyConsumption", api.totalEnergy,
               err) ||
      !resolve(api.lib, "nvmlDeviceGetPowerUsage", api.powerUsage, err) ||
      !resolve(api.lib, "nvmlDeviceGetTemperature", api.temperature, err) ||
      !resolve(api.lib, "nvmlDeviceGetSupportedGraphicsClocks",
               api.supportedGraphicsClocks, err) ||
      !resolve(api.lib, "nvmlDeviceGetClockInfo", api.clockInfo, err) ||
      !resolve(api.lib, "nvmlDeviceSetGpuLockedClocks", api.setLockedClocks,
               err) ||
      !resolve(api.lib, "nvmlDeviceResetGpuLockedClocks", api.resetLockedClocks,
               err) ||
      !resolve(api.lib, "nvmlDeviceGetPowerManagementLimitConstraints",
               api.limitConstraints, err) ||
      !resolve(api.lib, "nvmlDeviceGetPowerManagementLimit", api.limit, err) ||
      !resolve(api.lib, "nvmlDeviceGetPowerManagementDefaultLimit",
               api.defaultLimit, err) ||
      !resolve(api.lib, "nvmlDeviceSetPowerManagementLimit", api.setLimit,
               err) ||
      !resolve(api.lib, "nvmlErrorString", api.errorString, err))
    return nullptr;
  nvmlReturn_t r = api.init();
  if (r != NVML_SUCCESS) {
    err = "nvmlInit_v2: " + api.describe(r);
    return nullptr;
  }
  nvmlDevice_t h = nullptr;
  r = api.handleByIndex(index, &h);
  if (r != NVML_SUCCESS) {
    err = "nvmlDeviceGetHandleByIndex_v2(" + std::to_string(index) +
          "): " + api.describe(r);
    api.shutdown();
    return nullptr;
  }
  auto dev = std::make_unique<NvmlDevice>(api, h);
  dev->index = index;
  return dev;
}

} // namespace rt
} // namespace energy
