/*===- FakeNvml.c - a test double of libnvidia-ml.so.1 -------------------===*
 *
 * For CI machines without a GPU: built as fake-nvml/libnvidia-ml.so.1 and
 * put first on LD_LIBRARY_PATH, it lets the runtime's real NVML code path
 * (dlopen, dlsym, error strings) and the C API's sampled counter run.
 * Nothing else uses it. It models what was measured on an H200
 * (examples/data/h200/README.md): a total-energy counter that changes
 * every 100 ms (FAKE_NVML_UPDATE_MS), a constant draw (FAKE_NVML_POWER_W,
 * default 250 W), and calls that each take FAKE_NVML_CALL_US microseconds
 * (default 0; about 2,250 on that machine). Clock and power-limit changes
 * are refused with NVML's "Insufficient Permissions", as for a non-root
 * user; with FAKE_NVML_WRITABLE=1 they succeed, as for root, and hold for
 * the process. Built with -DFAKE_NVML_OLD it lacks
 * nvmlDeviceGetTotalEnergyConsumption, like drivers before Volta's.
 *
 *===----------------------------------------------------------------------===*/

#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int nvmlReturn_t;
typedef struct nvmlDevice_st *nvmlDevice_t;
enum { OK = 0, UNINITIALIZED = 1, INVALID_ARGUMENT = 2, NO_PERMISSION = 4 };

static struct nvmlDevice_st { int unused; } theDevice;
static int initialized;
static double startS;
static unsigned long long energyReads;

/* Not NVML: how often the energy counter was read (tests look it up with
 * dlsym to see which code paths call the driver). */
unsigned long long fakeNvmlEnergyReads(void) {
  return __atomic_load_n(&energyReads, __ATOMIC_RELAXED);
}

static double envNumber(const char *name, double fallback) {
  const char *v = getenv(name);
  return v && *v ? atof(v) : fallback;
}

static double nowS(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* Each call's cost, spent busy (a driver round trip). */
static void callCost(void) {
  double us = envNumber("FAKE_NVML_CALL_US", 0);
  double until = nowS() + 1e-6 * us;
  while (us > 0 && nowS() < until) {
  }
}

#define CHECK_INIT()                                                           \
  do {                                                                         \
    callCost();                                                                \
    if (!initialized)                                                          \
      return UNINITIALIZED;                                                    \
  } while (0)

/* Reference counted, as NVML's own: each nvmlInit_v2 needs its
 * nvmlShutdown (a second device opened and closed leaves the first open). */
nvmlReturn_t nvmlInit_v2(void) {
  callCost();
  if (initialized++ == 0)
    startS = nowS();
  return OK;
}
nvmlReturn_t nvmlShutdown(void) {
  if (initialized > 0)
    --initialized;
  return OK;
}
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned index, nvmlDevice_t *h) {
  CHECK_INIT();
  if (index != 0 || !h)
    return INVALID_ARGUMENT;
  *h = &theDevice;
  return OK;
}
nvmlReturn_t nvmlDeviceGetCount_v2(unsigned *count) {
  CHECK_INIT();
  if (!count)
    return INVALID_ARGUMENT;
  *count = 1;
  return OK;
}
/* The one GPU's UUID (FAKE_NVML_UUID, default below). */
nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t h, char *buf, unsigned len) {
  CHECK_INIT();
  (void)h;
  const char *uuid = getenv("FAKE_NVML_UUID");
  if (!uuid || !*uuid)
    uuid = "GPU-8f2e1c3a-5b7d-4e9f-a1b2-c3d4e5f60718";
  if (!buf || len <= strlen(uuid))
    return INVALID_ARGUMENT;
  strcpy(buf, uuid);
  return OK;
}
nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t h, char *buf, unsigned len) {
  CHECK_INIT();
  (void)h;
  if (!buf || len < 2)
    return INVALID_ARGUMENT;
  strncpy(buf, "Fake NVML (test double)", len - 1);
  buf[len - 1] = 0;
  return OK;
}
#ifndef FAKE_NVML_OLD
nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t h,
                                                 unsigned long long *mj) {
  CHECK_INIT();
  (void)h;
  __atomic_add_fetch(&energyReads, 1, __ATOMIC_RELAXED);
  double period = 1e-3 * envNumber("FAKE_NVML_UPDATE_MS", 100);
  double t = nowS() - startS;
  double lastUpdate = period > 0 ? (double)(long long)(t / period) * period : t;
  *mj = (unsigned long long)(1e3 * envNumber("FAKE_NVML_POWER_W", 250) *
                                 lastUpdate +
                             0.5);
  return OK;
}
#endif
nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t h, unsigned *mw) {
  CHECK_INIT();
  (void)h;
  *mw = (unsigned)(1e3 * envNumber("FAKE_NVML_POWER_W", 250));
  return OK;
}
nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t h, int sensor, unsigned *t) {
  CHECK_INIT();
  (void)h;
  (void)sensor;
  *t = 35;
  return OK;
}
static const unsigned clocks[] = {1980, 1755, 1530, 1305};
nvmlReturn_t nvmlDeviceGetSupportedGraphicsClocks(nvmlDevice_t h, unsigned mem,
                                                  unsigned *count,
                                                  unsigned *out) {
  CHECK_INIT();
  (void)h;
  if (mem != 3201 || !count)
    return INVALID_ARGUMENT;
  unsigned n = sizeof clocks / sizeof clocks[0];
  if (*count < n) {
    *count = n;
    return 7; /* NVML_ERROR_INSUFFICIENT_SIZE */
  }
  memcpy(out, clocks, sizeof clocks);
  *count = n;
  return OK;
}
/* FAKE_NVML_WRITABLE=1: the settings a root user could change. */
static unsigned lockedMhz, limitMw;
static int writable(void) {
  const char *w = getenv("FAKE_NVML_WRITABLE");
  return w && strcmp(w, "1") == 0;
}
static unsigned currentLimitMw(void) { return limitMw ? limitMw : 700000; }
nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t h, int type, unsigned *mhz) {
  CHECK_INIT();
  (void)h;
  /* NVML_CLOCK_MEM : NVML_CLOCK_SM */
  *mhz = type == 2 ? 3201 : lockedMhz ? lockedMhz : 1980;
  return OK;
}
nvmlReturn_t nvmlDeviceSetGpuLockedClocks(nvmlDevice_t h, unsigned lo,
                                          unsigned hi) {
  CHECK_INIT();
  (void)h;
  (void)hi;
  if (!writable())
    return NO_PERMISSION;
  lockedMhz = lo;
  return OK;
}
nvmlReturn_t nvmlDeviceResetGpuLockedClocks(nvmlDevice_t h) {
  CHECK_INIT();
  (void)h;
  if (!writable())
    return NO_PERMISSION;
  lockedMhz = 0;
  return OK;
}
nvmlReturn_t nvmlDeviceGetPowerManagementLimitConstraints(nvmlDevice_t h,
                                                          unsigned *lo,
                                                          unsigned *hi) {
  CHECK_INIT();
  (void)h;
  *lo = 200000;
  *hi = 700000;
  return OK;
}
nvmlReturn_t nvmlDeviceGetPowerManagementLimit(nvmlDevice_t h, unsigned *mw) {
  CHECK_INIT();
  (void)h;
  *mw = currentLimitMw();
  return OK;
}
nvmlReturn_t nvmlDeviceGetPowerManagementDefaultLimit(nvmlDevice_t h,
                                                      unsigned *mw) {
  CHECK_INIT();
  (void)h;
  *mw = 700000;
  return OK;
}
nvmlReturn_t nvmlDeviceSetPowerManagementLimit(nvmlDevice_t h, unsigned mw) {
  CHECK_INIT();
  (void)h;
  if (!writable())
    return NO_PERMISSION;
  if (mw < 200000 || mw > 700000)
    return INVALID_ARGUMENT;
  limitMw = mw;
  return OK;
}
const char *nvmlErrorString(nvmlReturn_t r) {
  switch (r) {
  case OK:
    return "Success";
  case UNINITIALIZED:
    return "Uninitialized";
  case INVALID_ARGUMENT:
    return "Invalid Argument";
  case NO_PERMISSION:
    return "Insufficient Permissions";
  default:
    return "Unknown Error";
  }
}
