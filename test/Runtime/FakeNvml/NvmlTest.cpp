//===- NvmlTest.cpp - the NVML backend and C API on a driver double -------===//
//
// Run by test/Runtime/nvml-fake.test with fake-nvml/libnvidia-ml.so.1
// (FakeNvml.c) first on LD_LIBRARY_PATH: the runtime's own dlopen/dlsym
// path, NVML's error strings, and the C API's sampled energy counter.
// FAKE_NVML_VARIANT=old: the library lacks the energy counter.
//
//===----------------------------------------------------------------------===//

#include "runtime/Nvml.h"
#include "runtime/RestoreRecord.h"
#include "runtime/include/energy_rt.h"
#if ENERGY_CUDA_KERNELS
#include "runtime/kernels/CudaDevice.h"
#endif

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <dlfcn.h>
#include <fstream>
#include <iterator>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace energy::rt;

namespace {

bool oldVariant() {
  const char *v = std::getenv("FAKE_NVML_VARIANT");
  return v && std::string(v) == "old";
}

double power() {
  const char *v = std::getenv("FAKE_NVML_POWER_W");
  return v ? std::atof(v) : 250;
}

/// The double's read count (not an NVML function).
unsigned long long energyReads() {
  void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (!lib)
    return ~0ull;
  auto f = reinterpret_cast<unsigned long long (*)()>(
      dlsym(lib, "fakeNvmlEnergyReads"));
  dlclose(lib);
  return f ? f() : ~0ull;
}

/// One C API region of `ms` milliseconds of sleep; its totals from
/// er_result. False (with the C API's error) when a call fails.
struct RegionTotals {
  double E = 0, T = 0;
  unsigned n = 0;
};
bool sleepRegion(const char *name, int ms, RegionTotals &out) {
  if (er_begin(name) != 0)
    return false;
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  return er_end(name) == 0 && er_result(name, &out.E, &out.T, &out.n) == 0;
}

TEST(Nvml, DriverCallsAndErrors) {
  if (oldVariant())
    GTEST_SKIP();
  std::string err;
  std::unique_ptr<Device> dev = openNvmlDevice(0, err);
  ASSERT_TRUE(dev) << err;
  EXPECT_EQ(dev->identity(), "nvml:Fake NVML (test double)");
  EXPECT_EQ(dev->supportedSmClocks(),
            (std::vector<int>{1980, 1755, 1530, 1305}));
  EXPECT_EQ(dev->currentSmClock(), 1980);
  PowerLimits pl;
  ASSERT_TRUE(dev->powerLimits(pl, err)) << err;
  EXPECT_EQ(pl.minW, 200);
  EXPECT_EQ(pl.maxW, 700);
  EXPECT_EQ(pl.currentW, 700);
  // Changes need permission the double (like a non-root user) lacks.
  EXPECT_FALSE(dev->setSmClock(1530, err));
  EXPECT_EQ(err, "nvmlDeviceSetGpuLockedClocks: Insufficient Permissions");
  EXPECT_FALSE(dev->setPowerLimit(300, err));
  EXPECT_NE(err.find("Insufficient Permissions"), std::string::npos) << err;
  // The counter steps: two reads 250 ms apart differ by whole updates.
  uint64_t a = dev->energyCounterMilliJoules();
  std::this_thread::sleep_for(std::chrono::milliseconds(250));
  uint64_t b = dev->energyCounterMilliJoules();
  double step = power() * 0.1 * 1e3;
  EXPECT_GE(double(b - a), 2 * step - 1);
  EXPECT_EQ(std::fmod(double(b - a) + 0.5, step) < 2, true) << b - a;
  dev.reset();
  EXPECT_FALSE(openNvmlDevice(1, err));
  EXPECT_EQ(err, "nvmlDeviceGetHandleByIndex_v2(1): Invalid Argument");
}

// A guard restores what its process changed, and nothing else: a power cap
// an administrator set (500 W of a 700 W default) stays through a
// clock-only plan, and a plan that changes the power limit puts that cap
// back, not the default -- on its end and from its restore record.
TEST(Nvml, GuardRestoresOnlyWhatItChanged) {
  if (oldVariant())
    GTEST_SKIP();
  struct Writable { // as root, for this test only
    Writable() { setenv("FAKE_NVML_WRITABLE", "1", 1); }
    ~Writable() { unsetenv("FAKE_NVML_WRITABLE"); }
  } writable;
  std::string err;
  std::unique_ptr<Device> admin = openNvmlDevice(0, err),
                          dev = openNvmlDevice(0, err);
  ASSERT_TRUE(admin && dev) << err;
  ASSERT_TRUE(admin->setPowerLimit(500, err)) << err; // nvidia-smi -pl 500
  auto limitW = [&] {
    PowerLimits pl;
    EXPECT_TRUE(dev->powerLimits(pl, err)) << err;
    return pl.currentW;
  };
  ASSERT_EQ(limitW(), 500);
  {
    ClockGuard guard(*dev);
    ASSERT_TRUE(dev->setSmClock(1305, err)) << err;
    EXPECT_EQ(dev->currentSmClock(), 1305);
  }
  EXPECT_EQ(dev->currentSmClock(), 1980);
  EXPECT_EQ(limitW(), 500) << "a clock-only guard reset the power cap";
  {
    ClockGuard guard(*dev);
    ASSERT_TRUE(dev->setPowerLimit(300, err)) << err;
    ASSERT_TRUE(dev->setPowerLimit(350, err)) << err;
    EXPECT_EQ(limitW(), 350);
  }
  EXPECT_EQ(limitW(), 500) << "the cap before the plan, not the default";
  // From a record, as a process finding this one gone would: the power
  // limit it had, and no clock (another holder's 1530 MHz stays).
  RestoreRecord r;
  r.device = "cuda:0";
  r.path = "/nonexistent/record";
  r.clockChanged = 0;
  r.powerChanged = 1;
  r.powerPriorW = 500;
  ASSERT_TRUE(admin->setSmClock(1530, err)) << err;
  ASSERT_TRUE(admin->setPowerLimit(250, err)) << err;
  EXPECT_TRUE(restoreFromRecord(r, err)) << err;
  EXPECT_EQ(limitW(), 500);
  EXPECT_EQ(dev->currentSmClock(), 1530);
  ASSERT_TRUE(admin->resetSmClock(err)) << err;
  ASSERT_TRUE(admin->setPowerLimit(700, err)) << err;
}

// cuda:<i> is CUDA's numbering: the i-th GPU CUDA_VISIBLE_DEVICES lists
// (Slurm's "4,5,6,7" makes cuda:0 the machine's GPU 4), which NVML numbers
// among all of the machine's. Measuring, or setting the clocks of, NVML's
// GPU i instead would be another job's GPU.
TEST(Nvml, CudaIndicesFollowCudaVisibleDevices) {
  std::string err;
  unsigned nvml = 99;
  ::unsetenv("CUDA_VISIBLE_DEVICES");
  ASSERT_TRUE(nvmlIndexOfCuda(3, nvml, err)) << err;
  EXPECT_EQ(nvml, 3u);
  ::setenv("CUDA_VISIBLE_DEVICES", "4, 5,6", 1);
  ASSERT_TRUE(nvmlIndexOfCuda(1, nvml, err)) << err;
  EXPECT_EQ(nvml, 5u);
  EXPECT_FALSE(nvmlIndexOfCuda(3, nvml, err));
  EXPECT_EQ(err, "cuda:3: CUDA_VISIBLE_DEVICES='4, 5,6' lists 3 GPU(s)");
  // By UUID, or a prefix of one, as CUDA accepts: the double's GPU 0.
  ::setenv("CUDA_VISIBLE_DEVICES", "GPU-8f2e", 1);
  nvml = 99;
  ASSERT_TRUE(nvmlIndexOfCuda(0, nvml, err)) << err;
  EXPECT_EQ(nvml, 0u);
  ::setenv("CUDA_VISIBLE_DEVICES",
           "1, GPU-8f2e1c3a-5b7d-4e9f-a1b2-c3d4e5f60718", 1);
  nvml = 99;
  ASSERT_TRUE(nvmlIndexOfCuda(1, nvml, err)) << err;
  EXPECT_EQ(nvml, 0u);
  ::setenv("CUDA_VISIBLE_DEVICES", "GPU-0000", 1);
  EXPECT_FALSE(nvmlIndexOfCuda(0, nvml, err));
  EXPECT_EQ(err, "cuda:0 is 'GPU-0000' of CUDA_VISIBLE_DEVICES='GPU-0000': no "
                 "GPU of the 1 NVML sees has that UUID");
  ::setenv("CUDA_VISIBLE_DEVICES", "MIG-8f2e", 1);
  EXPECT_FALSE(nvmlIndexOfCuda(0, nvml, err));
  EXPECT_NE(err.find("a MIG instance"), std::string::npos) << err;
  ::setenv("CUDA_VISIBLE_DEVICES", "gpu0", 1);
  EXPECT_FALSE(nvmlIndexOfCuda(0, nvml, err));
  EXPECT_NE(err.find("neither a GPU index nor a GPU UUID"), std::string::npos)
      << err;
  ::setenv("CUDA_VISIBLE_DEVICES", "", 1);
  EXPECT_FALSE(nvmlIndexOfCuda(0, nvml, err));
  EXPECT_EQ(err, "CUDA_VISIBLE_DEVICES='': this process sees no GPU");
  // The runtime opens the listed GPU: the double has one, NVML's 0.
  ::setenv("CUDA_VISIBLE_DEVICES", "1", 1);
  EXPECT_NE(er_init("cuda:0"), 0);
  EXPECT_NE(
      std::string(er_last_error()).find("nvmlDeviceGetHandleByIndex_v2(1)"),
      std::string::npos)
      << er_last_error();
  // "cuda", this process's GPU: a process shown one GPU (Slurm's
  // --gpus-per-task) has it as cuda:0 whatever its LOCAL_RANK -- the
  // double's GPU 0 here; shown them all, torchrun's LOCAL_RANK (3: none).
  ::setenv("CUDA_VISIBLE_DEVICES", "0", 1);
  ::setenv("LOCAL_RANK", "3", 1);
  EXPECT_EQ(er_init("cuda"), 0) << er_last_error();
  er_shutdown();
  ::unsetenv("CUDA_VISIBLE_DEVICES");
  EXPECT_NE(er_init("cuda"), 0);
  EXPECT_NE(
      std::string(er_last_error()).find("nvmlDeviceGetHandleByIndex_v2(3)"),
      std::string::npos)
      << er_last_error();
  ::unsetenv("LOCAL_RANK");
}

TEST(Nvml, CApiRegionsReadTheSampledCounter) {
  if (oldVariant())
    GTEST_SKIP();
  ASSERT_EQ(er_init("cuda:0"), 0) << er_last_error();
  // Region boundaries do not call the driver: 1000 pairs while the
  // sampler polls every 10 ms (reading per boundary would be 2000+).
  unsigned long long before = energyReads();
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < 1000; ++i) {
    ASSERT_EQ(er_begin("empty"), 0);
    ASSERT_EQ(er_end("empty"), 0);
  }
  double loopS =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
          .count();
  unsigned long long during = energyReads() - before;
  EXPECT_LE(during, 2 + loopS / 0.01 * 2) << "in " << loopS << " s";
  // A 600 ms region at constant power: P x T, within the placement of the
  // counter's changes (half a 10 ms poll at each end when the polling
  // thread runs on time; 50 ms of P allowed in all, for a loaded machine).
  RegionTotals r;
  ASSERT_TRUE(sleepRegion("long", 600, r)) << er_last_error();
  EXPECT_EQ(r.n, 1u);
  EXPECT_GE(r.T, 0.6);
  EXPECT_NEAR(r.E, power() * r.T, power() * 0.05) << "T = " << r.T;
  // A region shorter than one counter update is charged its share, not 0
  // or a whole step: twenty 5 ms regions spread over 0.4 s.
  for (int i = 0; i < 20; ++i) {
    ASSERT_EQ(er_begin("short"), 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    ASSERT_EQ(er_end("short"), 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(15));
  }
  ASSERT_EQ(er_result("short", &r.E, &r.T, &r.n), 0) << er_last_error();
  EXPECT_EQ(r.n, 20u);
  EXPECT_GT(r.E, 0);
  EXPECT_NEAR(r.E / r.T, power(), 0.5 * power())
      << "E = " << r.E << " T = " << r.T;
  // The plan path asks for permission the double refuses, by name, when
  // the plan is given (not at its first region, mid-job); the region then
  // runs at whatever clock is set.
  setenv("ENERGY_RT_ALLOW_CLOCK_CHANGES", "1", 1);
  EXPECT_EQ(er_plan_clock("long", 1530), -1);
  EXPECT_NE(std::string(er_last_error()).find("Insufficient Permissions"),
            std::string::npos)
      << er_last_error();
  EXPECT_EQ(er_begin("long"), 0) << er_last_error();
  EXPECT_EQ(er_end("long"), 0) << er_last_error();
  er_shutdown();
}

// A begin whose planned clock the driver refuses opens nothing and takes no
// begin of the plan: retried once permitted, it is the same k-th begin
// ("r[0]"'s clock, not "r[1]"'s).
TEST(Nvml, CApiRefusedPlannedClockTakesNoBegin) {
  if (oldVariant())
    GTEST_SKIP();
  setenv("FAKE_NVML_WRITABLE", "1", 1);
  setenv("ENERGY_RT_ALLOW_CLOCK_CHANGES", "1", 1);
  ASSERT_EQ(er_init("cuda:0"), 0) << er_last_error();
  ASSERT_EQ(er_plan_clock("r[0]", 1530), 0) << er_last_error();
  ASSERT_EQ(er_plan_clock("r[1]", 1305), 0) << er_last_error();
  std::string err;
  std::unique_ptr<Device> dev = openNvmlDevice(0, err);
  ASSERT_TRUE(dev) << err;
  unsetenv("FAKE_NVML_WRITABLE"); // the permission lost mid-job
  EXPECT_EQ(er_begin("r"), -1);
  EXPECT_NE(std::string(er_last_error()).find("region 'r'"), std::string::npos)
      << er_last_error();
  setenv("FAKE_NVML_WRITABLE", "1", 1);
  ASSERT_EQ(er_begin("r"), 0) << er_last_error();
  EXPECT_EQ(dev->currentSmClock(), 1530);
  ASSERT_EQ(er_end("r"), 0) << er_last_error();
  ASSERT_EQ(er_begin("r"), 0) << er_last_error();
  EXPECT_EQ(dev->currentSmClock(), 1305);
  ASSERT_EQ(er_end("r"), 0) << er_last_error();
  er_shutdown();
  EXPECT_EQ(dev->currentSmClock(), 1980); // restored at shutdown
  unsetenv("FAKE_NVML_WRITABLE");
  unsetenv("ENERGY_RT_ALLOW_CLOCK_CHANGES");
}

// A profile across power limits and clocks through the driver: every limit
// with every clock under it, in that order, then what was in force before
// (an administrator's 500 W cap, not the default 700 W; the clocks
// unlocked).
TEST(Nvml, CApiProfileAcrossLimitsAndClocks) {
  if (oldVariant())
    GTEST_SKIP();
  setenv("FAKE_NVML_WRITABLE", "1", 1);
  std::string err;
  std::unique_ptr<Device> dev = openNvmlDevice(0, err);
  ASSERT_TRUE(dev) << err;
  ASSERT_TRUE(dev->setPowerLimit(500, err)) << err; // nvidia-smi -pl 500
  auto limitW = [&] {
    PowerLimits pl;
    EXPECT_TRUE(dev->powerLimits(pl, err)) << err;
    return pl.currentW;
  };
  setenv("ENERGY_RT_ALLOW_CLOCK_CHANGES", "1", 1);
  setenv("ENERGY_RT_PROFILE_POWER_LIMITS", "300,250", 1);
  // Listed from the lowest: each limit runs its clocks from the highest
  // down, settling (where asked) once at the first, the limit newly set.
  setenv("ENERGY_RT_PROFILE_CLOCKS", "1305,1530", 1);
  setenv("ENERGY_RT_PROFILE_WARMUP", "0", 1);
  setenv("ENERGY_RT_PROFILE_ITERATIONS", "1", 1);
  for (int settle : {0, 1}) {
    SCOPED_TRACE("settle " + std::to_string(settle));
    setenv("ENERGY_RT_PROFILE_SETTLE", std::to_string(settle).c_str(), 1);
    ASSERT_EQ(er_init("cuda:0"), 0) << er_last_error();
    std::vector<std::pair<double, int>> want;
    for (double w : {300, 250}) {
      for (int i = 0; i < settle; ++i)
        want.push_back({w, 1530});
      want.push_back({w, 1530});
      want.push_back({w, 1305});
    }
    for (auto [w, mhz] : want) {
      EXPECT_EQ(limitW(), w);
      EXPECT_EQ(dev->currentSmClock(), mhz);
      ASSERT_EQ(er_step(), 0) << er_last_error();
    }
    EXPECT_EQ(limitW(), 500) << "the cap before the sweep, not the default";
    EXPECT_EQ(dev->currentSmClock(), 1980);
    er_shutdown();
  }
  for (const char *v :
       {"ENERGY_RT_PROFILE_POWER_LIMITS", "ENERGY_RT_PROFILE_CLOCKS",
        "ENERGY_RT_PROFILE_WARMUP", "ENERGY_RT_PROFILE_ITERATIONS",
        "ENERGY_RT_PROFILE_SETTLE", "ENERGY_RT_ALLOW_CLOCK_CHANGES"})
    unsetenv(v);
  ASSERT_TRUE(dev->setPowerLimit(700, err)) << err;
  unsetenv("FAKE_NVML_WRITABLE");
}

// Windows whose energy is read later (er_end_ticket): ending one does not
// wait for the counter (er_end_measure waits up to one 100 ms update), and
// each energy, read afterwards, is P x its time; a ticket is read once,
// can be asked without waiting, and can be released unread.
TEST(Nvml, CApiTicketsDoNotWaitForTheCounter) {
  if (oldVariant())
    GTEST_SKIP();
  ASSERT_EQ(er_init("cuda:0"), 0) << er_last_error();
  const int n = 10;
  unsigned long long tickets[n];
  double times[n];
  int mhz = 0;
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) {
    ASSERT_EQ(er_begin("w"), 0) << er_last_error();
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    ASSERT_EQ(er_end_ticket("w", &tickets[i], &times[i], &mhz), 0)
        << er_last_error();
    EXPECT_GE(times[i], 0.01);
  }
  double loopS =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
          .count();
  // Ten 10 ms windows: ~0.1 s; waiting for the counter at each end would
  // take ~1 s (a loaded machine is allowed half of that).
  EXPECT_LT(loopS, 0.5);
  EXPECT_EQ(mhz, 1980);
  // The last one has ended just now: the counter has almost surely not
  // passed it yet (it would have only if this thread was descheduled for a
  // poll period), and asked without waiting the answer is "not yet".
  double e = -1;
  int rc = er_ticket_energy(tickets[n - 1], /*wait=*/0, &e);
  if (rc == 1) {
    EXPECT_EQ(e, -1);
    ASSERT_EQ(er_ticket_energy(tickets[n - 1], /*wait=*/1, &e), 0);
  }
  ASSERT_NE(rc, -1) << er_last_error();
  EXPECT_NEAR(e, power() * times[n - 1], power() * 0.01);
  ASSERT_EQ(er_ticket_release(tickets[0]), 0) << er_last_error();
  EXPECT_EQ(er_ticket_release(tickets[0]), 0); // held or not, never fails
  EXPECT_EQ(er_ticket_energy(tickets[0], 1, &e), -1);
  for (int i = 1; i < n - 1; ++i) {
    ASSERT_EQ(er_ticket_energy(tickets[i], /*wait=*/1, &e), 0)
        << er_last_error();
    // Half a 10 ms poll at each end, and a loaded machine's scheduling.
    EXPECT_NEAR(e, power() * times[i], power() * 0.01) << "window " << i;
  }
  EXPECT_EQ(er_ticket_energy(tickets[1], 1, &e), -1);
  EXPECT_NE(std::string(er_last_error()).find("read or released already"),
            std::string::npos)
      << er_last_error();
  EXPECT_EQ(er_ticket_energy(12345678, 1, &e), -1);
  EXPECT_NE(std::string(er_last_error()).find("not given by er_end_ticket"),
            std::string::npos)
      << er_last_error();
  // Every window counts in the region's totals, the released one too.
  RegionTotals r;
  ASSERT_EQ(er_result("w", &r.E, &r.T, &r.n), 0) << er_last_error();
  EXPECT_EQ(r.n, unsigned(n));
  // A ticket still pending when the runtime starts again (here on a
  // simulated device, which has no counter to wait for) is forgotten with
  // the rest: an error, not a read of the sampler that went (it crashed).
  // A re-init alone would drop the unflushed runs: refused; after
  // er_shutdown (which drops them) it starts again.
  unsigned long long stale = 0;
  ASSERT_EQ(er_begin("w"), 0);
  ASSERT_EQ(er_end_ticket("w", &stale, nullptr, nullptr), 0);
  EXPECT_EQ(er_init("sim:a100"), -1);
  EXPECT_NE(std::string(er_last_error()).find("not yet flushed"),
            std::string::npos)
      << er_last_error();
  er_shutdown();
  ASSERT_EQ(er_init("sim:a100"), 0) << er_last_error();
  EXPECT_EQ(er_ticket_energy(stale, 1, &e), -1);
  EXPECT_NE(std::string(er_last_error()).find("er_init or er_shutdown"),
            std::string::npos)
      << er_last_error();
  er_shutdown();
}

// fork() after er_init (a data loader's workers): the child has no sampler
// thread and must not use (or, exiting, tear down) the parent's; it is told
// to call er_init. The parent goes on measuring.
// Nested regions on the sampled-counter path: an outer "iter" around short
// "step" regions. Pending regions are resolved in the order they end, so
// the outer one (which started first) must keep its counter history; every
// call succeeds and the energies are P x T of each (the double draws a
// constant power), with the counter updating every 20 ms
// (FAKE_NVML_UPDATE_MS in nvml-fake.test).
TEST(Nvml, CApiNestedRegionsKeepTheirHistory) {
  if (oldVariant())
    GTEST_SKIP();
  ASSERT_EQ(er_init("cuda:0"), 0) << er_last_error();
  // Short iterations of 50 back-to-back steps: ended regions pile up to
  // the batch (4,096) after which they are resolved while others are still
  // pending, and the counter changes inside some iteration that has ended
  // by then. That outer region, pending behind inner ones that ended before
  // it but started after it, must keep the counter history back to its own
  // start.
  const int iterations = 400, steps = 50;
  for (int it = 0; it < iterations; ++it) {
    ASSERT_EQ(er_begin("iter"), 0) << er_last_error();
    for (int k = 0; k < steps; ++k) {
      ASSERT_EQ(er_begin("step"), 0) << er_last_error();
      if (k == steps / 2) // ~1 ms iterations: the counter changes inside some
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      ASSERT_EQ(er_end("step"), 0) << er_last_error();
    }
    ASSERT_EQ(er_end("iter"), 0) << er_last_error();
  }
  RegionTotals outer, inner;
  ASSERT_EQ(er_result("iter", &outer.E, &outer.T, &outer.n), 0)
      << er_last_error();
  ASSERT_EQ(er_result("step", &inner.E, &inner.T, &inner.n), 0)
      << er_last_error();
  EXPECT_EQ(outer.n, unsigned(iterations));
  EXPECT_EQ(inner.n, unsigned(steps * iterations));
  EXPECT_GE(outer.T, inner.T);
  // Constant power: the outer total is P x its time, within one 20 ms
  // update at each end of each iteration (and a loaded machine's
  // scheduling); the steps, each charged its share, sum to P x their time.
  EXPECT_NEAR(outer.E, power() * outer.T,
              0.2 * power() * outer.T + power() * 0.05)
      << "T = " << outer.T;
  EXPECT_NEAR(inner.E, power() * inner.T,
              0.2 * power() * inner.T + power() * 0.05)
      << "T = " << inner.T;
  std::string db = ::testing::TempDir() + "nested-%r.json";
  EXPECT_EQ(er_flush(db.c_str()), 0) << er_last_error();
  er_shutdown();
}

// A process that only measures sees another process hold the device (a
// clock sweep, a plan: its claim, RestoreRecord.h): a run across that hold
// is in the region's totals but in no clock's entry of the DB, and said;
// a run after it is filed under its clock again.
TEST(Nvml, CApiRunsAcrossAnotherHolderHaveNoClock) {
  if (oldVariant())
    GTEST_SKIP();
  int ready[2], done[2];
  ASSERT_EQ(::pipe(ready), 0);
  ASSERT_EQ(::pipe(done), 0);
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) { // the other job: holds cuda:0 until told
    std::string err;
    std::unique_ptr<Device> dev = openNvmlDevice(0, err);
    bool claimed = dev && !heldByAnotherProcess(*dev, err);
    char c = claimed ? '1' : '0';
    (void)!::write(ready[1], &c, 1);
    (void)!::read(done[0], &c, 1);
    ::_exit(claimed ? 0 : 3);
  }
  char c = 0;
  ASSERT_EQ(::read(ready[0], &c, 1), 1);
  ASSERT_EQ(c, '1') << "the other process could not claim the device";
  ASSERT_EQ(er_init("cuda:0"), 0) << er_last_error();
  RegionTotals during, after;
  ASSERT_TRUE(sleepRegion("during", 200, during)) << er_last_error();
  (void)!::write(done[1], "x", 1);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  std::this_thread::sleep_for(std::chrono::milliseconds(50)); // a poll
  ASSERT_TRUE(sleepRegion("after", 200, after)) << er_last_error();
  EXPECT_EQ(during.n, 1u);
  std::string path = ::testing::TempDir() + "foreign-holder-" +
                     std::to_string(::getpid()) + ".json";
  ASSERT_EQ(er_flush(path.c_str()), 0) << er_last_error();
  er_shutdown();
  std::ifstream in(path);
  std::string db((std::istreambuf_iterator<char>(in)),
                 std::istreambuf_iterator<char>());
  std::remove(path.c_str());
  // Entries are per region and clock: "after" has one, "during" none.
  EXPECT_NE(db.find("\"key\": \"after\""), std::string::npos) << db;
  EXPECT_EQ(db.find("\"key\": \"during\""), std::string::npos) << db;
  for (int fd : {ready[0], ready[1], done[0], done[1]})
    ::close(fd);
}

TEST(Nvml, CApiAcrossFork) {
  if (oldVariant())
    GTEST_SKIP();
  ASSERT_EQ(er_init("cuda:0"), 0) << er_last_error();
  ASSERT_EQ(er_begin("before"), 0);
  ASSERT_EQ(er_end("before"), 0);
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    bool told = er_begin("x") == -1 &&
                std::string(er_last_error()).find("forked after er_init") !=
                    std::string::npos;
    er_shutdown();           // nothing of the parent's to stop or restore
    std::exit(told ? 0 : 3); // static destructors run: no join, no hang
  }
  int status = -1;
  for (int i = 0; i < 500 && ::waitpid(child, &status, WNOHANG) == 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  if (status == -1) {
    ::kill(child, SIGKILL);
    ::waitpid(child, &status, 0);
    FAIL() << "the forked child hung on exit";
  }
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "the child was not told to re-init";
  // The parent's sampler still runs: a new region is measured.
  RegionTotals r;
  ASSERT_TRUE(sleepRegion("after", 150, r)) << er_last_error();
  EXPECT_NEAR(r.E / r.T, power(), 0.5 * power())
      << "E = " << r.E << " T = " << r.T;
  er_shutdown();
}

TEST(NvmlOld, MissingSymbolIsNamed) {
  if (!oldVariant())
    GTEST_SKIP();
  std::string err;
  EXPECT_FALSE(openNvmlDevice(0, err));
  EXPECT_EQ(err, "libnvidia-ml.so.1 lacks nvmlDeviceGetTotalEnergyConsumption");
  EXPECT_EQ(er_init("cuda:0"), -1);
  EXPECT_EQ(std::string(er_last_error()), err);
}

#if ENERGY_CUDA_KERNELS
TEST(CudaBackend, RunsTheMicrobenchmarksByKeyPrefix) {
  std::string err;
  for (const char *key : {"fma", "copy-l2", "gemm", "attention", "flush"})
    EXPECT_TRUE(cudaCanRun(KernelSpec{key, 1, 1}, err)) << key;
  // Any other key is an error naming it, never a silent stand-in kernel.
  EXPECT_FALSE(cudaCanRun(KernelSpec{"matmul_1", 1e9, 1e6}, err));
  EXPECT_EQ(err, "kernel 'matmul_1': the CUDA backend runs the "
                 "microbenchmarks, named by the key's prefix: fma, copy, "
                 "gemm, attention or flush");
}
#endif

} // namespace
