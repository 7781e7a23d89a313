//===- RuntimeTest.cpp - the simulated device and the protocol ------------===//
//
// Ground truth is the simulated device's own model (its noise-free time and
// dynamic energy, its configured static power): characterization through
// the 100 ms, 1 mJ counter must recover it.
//
//===----------------------------------------------------------------------===//

#include "calculus/Signature.h"
#include "runtime/Characterize.h"
#include "runtime/Nvml.h"
#include "runtime/RestoreRecord.h"
#include "runtime/SimDevice.h"
#include "runtime/db/SignatureDb.h"
#include "runtime/include/energy_rt.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <dirent.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace energy;
using namespace energy::rt;

namespace {

SimDevice a100(uint64_t seed = 1) {
  SimGpu p;
  EXPECT_TRUE(simGpuFor("a100", p));
  return SimDevice(p, seed);
}

const KernelSpec gemm{"gemm", 2 * 4096.0 * 4096 * 4096, 3 * 4096.0 * 4096 * 2};
const KernelSpec copy{"copy", 0, 2e9};

TEST(SimDevice, CounterUpdatesEveryPeriodInMillijoules) {
  SimDevice dev = a100();
  dev.idle(0.05);
  EXPECT_EQ(dev.energyCounterMilliJoules(), 0u); // no update yet
  dev.idle(0.06);                                // crossed 0.1 s
  // 60 W for 0.1 s = 6 J = 6000 mJ at the boundary.
  EXPECT_NEAR(double(dev.energyCounterMilliJoules()), 6000, 1);
  SimGpu unknown;
  EXPECT_FALSE(simGpuFor("v100", unknown));
}

// Real time: kernels queue like launches on a CUDA stream and reading the
// device waits for them; wall time with nothing queued is idle at static
// power (60 W, thermal coupling off). The energy a window reads is static
// power x its wall time / k plus the kernels' dynamic energy, from first
// principles.
TEST(SimDevice, RealTimeLivesOnTheWallClock) {
  SimGpu p;
  ASSERT_TRUE(simGpuFor("a100", p));
  p.timeNoise = p.powerNoise = 0;
  for (double k : {1.0, 2.0}) {
    SimDevice dev(p, 1);
    const KernelSpec kernel{"k", 312e12 * 0.02, 0}; // 20 ms at 1410 MHz
    double T = dev.modelTime(kernel), d = dev.modelDynamicEnergy(kernel);
    dev.setRealTime(k);
    double t0, e0, t1, e1;
    dev.exactEnergyAndTime(e0, t0);
    auto w0 = std::chrono::steady_clock::now();
    // Two launches return at once; the read waits for both.
    EXPECT_DOUBLE_EQ(dev.run(kernel), T);
    EXPECT_DOUBLE_EQ(dev.run(kernel), T);
    std::chrono::duration<double> launch =
        std::chrono::steady_clock::now() - w0;
    EXPECT_LT(launch.count(), k * T);
    double tq = dev.now();
    std::chrono::duration<double> queued =
        std::chrono::steady_clock::now() - w0;
    EXPECT_GE(queued.count(), k * 2 * T);
    EXPECT_GE(tq - t0, 2 * T);
    std::this_thread::sleep_for(std::chrono::milliseconds(40));
    dev.exactEnergyAndTime(e1, t1);
    std::chrono::duration<double> wall = std::chrono::steady_clock::now() - w0;
    // Simulated time follows the wall clock (the reads took microseconds).
    EXPECT_GE(t1 - t0, 2 * T + 0.04 / k);
    EXPECT_NEAR(t1 - t0, wall.count() / k, 2e-3);
    EXPECT_NEAR(e1 - e0, p.staticRef * (t1 - t0) + 2 * d, 1e-9 * e1);
    // Host work longer than the kernel it launched: the device idles after
    // the kernel, and the window lasts the host's time.
    dev.run(kernel);
    std::this_thread::sleep_for(std::chrono::duration<double>(k * T + 0.03));
    double t2, e2;
    dev.exactEnergyAndTime(e2, t2);
    EXPECT_GE(t2 - t1, T + 0.03 / k);
    EXPECT_NEAR(e2 - e1, p.staticRef * (t2 - t1) + d, 1e-9 * e2);
  }
  // Virtual time (the default) never sleeps: a one-hour idle returns at once.
  SimDevice dev(p, 1);
  auto w0 = std::chrono::steady_clock::now();
  dev.idle(3600);
  std::chrono::duration<double> wall = std::chrono::steady_clock::now() - w0;
  EXPECT_LT(wall.count(), 1.0);
  EXPECT_DOUBLE_EQ(dev.now(), 3600);
}

TEST(SimDevice, ClockGuardRestoresTheDefault) {
  SimDevice dev = a100();
  {
    ClockGuard guard(dev);
    std::string err;
    ASSERT_TRUE(dev.setSmClock(900, err)) << err;
    EXPECT_EQ(dev.currentSmClock(), 900);
  }
  EXPECT_EQ(dev.currentSmClock(), 1410);
  std::string err;
  EXPECT_FALSE(dev.setSmClock(901, err));
  EXPECT_NE(err.find("unsupported SM clock 901"), std::string::npos);
}

std::string readFile(const std::string &path) {
  FILE *f = std::fopen(path.c_str(), "r");
  if (!f)
    return "";
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0)
    out.append(buf, n);
  std::fclose(f);
  return out;
}

TEST(SimDevice, ClockGuardRestoresTheDefaultPowerLimit) {
  SimDevice dev = a100();
  PowerLimits lim;
  std::string err;
  ASSERT_TRUE(dev.powerLimits(lim, err)) << err;
  EXPECT_EQ(lim.defaultW, 400); // A100-SXM4 TDP
  {
    ClockGuard guard(dev);
    ASSERT_TRUE(dev.setPowerLimit(250, err)) << err;
    ASSERT_TRUE(dev.powerLimits(lim, err));
    EXPECT_EQ(lim.currentW, 250);
  }
  ASSERT_TRUE(dev.powerLimits(lim, err));
  EXPECT_EQ(lim.currentW, 400);
  EXPECT_FALSE(dev.setPowerLimit(50, err)) << "below the range";
  EXPECT_FALSE(dev.setPowerLimit(401, err)) << "above the range";
}

// Under a power limit, a compute-bound kernel is throttled: the average power
// that characterization measures through the counter respects the limit,
// the kernel is longer, and one clock step higher the model's power would
// exceed the limit (the driver keeps the highest clock that fits).
TEST(SimDevice, PowerLimitThrottlesToTheHighestFittingClock) {
  SimDevice dev = a100(3);
  ProtocolOptions opts;
  Measurement free, capped;
  std::string err;
  ASSERT_TRUE(characterize(dev, gemm, opts, free, err)) << err;
  double freePower = free.s + free.d / free.T;
  double cap = 0.75 * freePower;
  ASSERT_GE(cap, 100.0);
  ASSERT_TRUE(dev.setPowerLimit(cap, err)) << err;
  ASSERT_TRUE(characterize(dev, gemm, opts, capped, err)) << err;
  EXPECT_LE(capped.s + capped.d / capped.T, cap * 1.02);
  EXPECT_GT(capped.T, free.T * 1.1);
  int f = dev.effectiveClock(gemm);
  ASSERT_LT(f, 1410);
  // Power one step up, from the V-f curve and C u V^2 f directly.
  const SimGpu &p = dev.params();
  int up = f + p.stepMhz;
  double compute = gemm.flops / (p.peakFlops * up / p.fmaxMhz);
  double T = std::max(compute, gemm.bytes / p.memBandwidth) + p.launchOverhead;
  double V = p.vmin + (p.vmax - p.vmin) * (up - p.fminMhz) /
                          double(p.fmaxMhz - p.fminMhz);
  double powerUp = p.staticRef + p.ceff * (compute / T) * V * V * up * 1e6 +
                   p.memPowerPerBandwidth * gemm.bytes / T;
  EXPECT_GT(powerUp, cap);
}

// A sweep killed midway restores the default clock: a child process sets a
// low clock under a ClockGuard and is killed with SIGTERM; the clock it
// published (as a GPU's clocks outlive the process) is back at the default.
TEST(SimDevice, ClocksAreRestoredWhenASweepIsKilled) {
  for (int sig : {SIGTERM, SIGINT}) {
    std::string state = ::testing::TempDir() + "energy-clock-state-" +
                        std::to_string(::getpid()) + "-" + std::to_string(sig);
    int ready[2];
    ASSERT_EQ(::pipe(ready), 0);
    pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      // A foreground program's dispositions: a launcher that runs tests in
      // the background (lit, make) leaves SIGINT ignored, and a guard
      // leaves an ignored signal alone.
      std::signal(sig, SIG_DFL);
      SimDevice dev = a100();
      dev.clockStateFile = state;
      ClockGuard guard(dev);
      std::string err;
      dev.setSmClock(900, err);
      char c = 'x';
      ssize_t w = ::write(ready[1], &c, 1);
      (void)w;
      for (;;)
        dev.run(gemm); // a sweep that never ends by itself
    }
    char c;
    ASSERT_EQ(::read(ready[0], &c, 1), 1);
    EXPECT_EQ(readFile(state), "900");
    ::kill(child, sig);
    int status = 0;
    ::waitpid(child, &status, 0);
    EXPECT_TRUE(WIFSIGNALED(status)) << "the signal's default action ran";
    EXPECT_EQ(WTERMSIG(status), sig);
    EXPECT_EQ(readFile(state), "1410") << "clock restored before exiting";
    ::close(ready[0]);
    ::close(ready[1]);
    std::remove(state.c_str());
  }
}

// A process that guards its clocks forks a worker (a data loader's, say);
// the worker is terminated, and exits normally in a second round. Neither
// may reset the parent's clock: the settings are the parent's to restore,
// which it still does itself.
TEST(SimDevice, AForkedChildNeverRestoresItsParentsClocks) {
  for (bool signalled : {true, false}) {
    std::string state = ::testing::TempDir() + "energy-clock-fork-" +
                        std::to_string(::getpid()) + "-" +
                        std::to_string(signalled);
    {
      SimDevice dev = a100();
      dev.clockStateFile = state;
      auto guard = std::make_unique<ClockGuard>(dev);
      std::string err;
      ASSERT_TRUE(dev.setSmClock(900, err)) << err;
      pid_t child = ::fork();
      ASSERT_GE(child, 0);
      if (child == 0) {
        if (signalled)
          ::raise(SIGTERM); // the inherited handler runs here
        guard.reset();      // the inherited guard's destructor
        ::_exit(0);
      }
      int status = 0;
      ::waitpid(child, &status, 0);
      EXPECT_EQ(signalled, WIFSIGNALED(status));
      EXPECT_EQ(readFile(state), "900") << "the child left the clock alone";
    }
    EXPECT_EQ(readFile(state), "1410") << "the parent restored it";
    std::remove(state.c_str());
  }
}

TEST(Characterize, RecoversTheModel) {
  SimDevice dev = a100(7);
  ProtocolOptions opts;
  for (const KernelSpec &k : {gemm, copy}) {
    Measurement m;
    std::string err;
    ASSERT_TRUE(characterize(dev, k, opts, m, err)) << err;
    EXPECT_NEAR(m.s, dev.params().staticRef, 0.005 * dev.params().staticRef);
    EXPECT_NEAR(m.T, dev.modelTime(k), 0.01 * dev.modelTime(k)) << k.key;
    EXPECT_NEAR(m.d, dev.modelDynamicEnergy(k),
                0.03 * dev.modelDynamicEnergy(k))
        << k.key;
    EXPECT_GT(m.varT, 0);
    EXPECT_EQ(m.runs, opts.runs);
  }
  // A lower clock: longer and cheaper per invocation for compute-bound work.
  Measurement hi, lo;
  std::string err;
  ASSERT_TRUE(characterize(dev, gemm, opts, hi, err));
  {
    ClockGuard guard(dev);
    ASSERT_TRUE(dev.setSmClock(1005, err));
    ASSERT_TRUE(characterize(dev, gemm, opts, lo, err));
  }
  EXPECT_GT(lo.T, hi.T);
  EXPECT_LT(lo.d, hi.d);
}

/// Predicted energy of a sequence from per-kernel characterizations.
calculus::Signature predict(const std::vector<Measurement> &ms) {
  calculus::Composer c(calculus::Op::Seq);
  for (const Measurement &m : ms)
    c.add(calculus::Signature::measured(m.s, m.T, m.d, m.varT, m.varD,
                                        calculus::DeviceSet::single(0)));
  return c.result();
}

TEST(Characterize, MechanismsOffCompositionsPassTheDeviationTest) {
  SimDevice dev = a100(11);
  ProtocolOptions opts;
  Measurement g, c;
  std::string err;
  ASSERT_TRUE(characterize(dev, gemm, opts, g, err));
  ASSERT_TRUE(characterize(dev, copy, opts, c, err));
  calculus::Signature pred = predict({g, c, g, g, c});
  double E, varE, busy = -1;
  ASSERT_TRUE(measureSequence(dev, {gemm, copy, gemm, gemm, copy}, opts, E,
                              varE, err, &busy));
  EXPECT_FALSE(calculus::deviates(pred.E(), pred.varE, E, varE, 0.95))
      << "predicted " << pred.E() << " measured " << E;
  // The composite's busy time per repetition is the model's kernel times
  // added (1 % timing noise averaged over the window: 2 % tolerance).
  double modelT = 3 * dev.modelTime(gemm) + 2 * dev.modelTime(copy);
  EXPECT_NEAR(busy, modelT, 0.02 * modelT);
  // A concurrent set reports its makespan, the model's co-run time.
  double Ep, varEp, makespan = -1;
  ASSERT_TRUE(
      measureConcurrent(dev, {gemm, copy}, opts, Ep, varEp, err, &makespan));
  double modelPar = dev.modelConcurrentTime({gemm, copy});
  EXPECT_NEAR(makespan, modelPar, 0.02 * modelPar);
}

TEST(Characterize, ThermalCouplingMakesLongCompositesFail) {
  SimDevice dev = a100(13);
  dev.thermalCoupling = true;
  ProtocolOptions opts;
  Measurement g;
  std::string err;
  ASSERT_TRUE(characterize(dev, gemm, opts, g, err));
  // Twenty seconds of back-to-back GEMMs heat the device well past its
  // null context (tau = R C = 4.8 s): leakage raises static power.
  size_t n = size_t(20 / g.T);
  std::vector<KernelSpec> seq(n, gemm);
  std::vector<Measurement> ms(n, g);
  calculus::Signature pred = predict(ms);
  ProtocolOptions few = opts;
  few.runs = 3;
  double E, varE;
  ASSERT_TRUE(measureSequence(dev, seq, few, E, varE, err));
  EXPECT_TRUE(calculus::deviates(pred.E(), pred.varE, E, varE, 0.95))
      << "predicted " << pred.E() << " measured " << E;
  EXPECT_GT(E, pred.E());
}

// L2 residency on the simulated A100 (40 MB): a consumer of the last
// kernel's data reads min(resident, bytes) from L2; the flush kernel
// evicts; a producer larger than L2 leaves only 40 MB. Times by the model
// (1 % noise: 5 % tolerance).
TEST(SimDevice, CacheResidencyServesReusedDataFromL2) {
  SimDevice dev = a100(5);
  dev.cacheResidency = true;
  const KernelSpec produce{"produce", 0, 2e7};
  const KernelSpec consume{"consume", 0, 2e7, "produce"};
  double cold = dev.modelTime(consume);
  double warm = dev.modelTime(KernelSpec{"consume", 0, 0});
  dev.run(produce);
  EXPECT_NEAR(dev.run(consume), warm, 0.05 * warm);
  dev.run(KernelSpec{"flush", 0, 2 * kL2FlushBytes});
  EXPECT_NEAR(dev.run(consume), cold, 0.05 * cold) << "evicted";
  dev.run(KernelSpec{"produce", 0, 6e7});
  const KernelSpec big{"consume", 0, 6e7, "produce"};
  double partial = dev.modelTime(KernelSpec{"consume", 0, 2e7});
  EXPECT_NEAR(dev.run(big), partial, 0.05 * partial) << "40 of 60 MB hit";
  dev.cacheResidency = false;
  dev.run(produce);
  EXPECT_NEAR(dev.run(consume), cold, 0.05 * cold) << "mechanism off";
}

// Concurrent kernels on the simulated device: dynamic energy adds (it is
// per unit of work); the makespan is the longest kernel without contention
// and the fluid sharing of SMs and HBM with it: two copies take twice one
// copy's memory time, a compute-bound GEMM hides under a copy.
TEST(SimDevice, ContentionSharesBandwidthBetweenConcurrentKernels) {
  SimDevice dev = a100();
  const SimGpu &p = dev.params();
  double copyMem = copy.bytes / p.memBandwidth;
  EXPECT_NEAR(dev.modelConcurrentTime({copy, copy}), dev.modelTime(copy),
              1e-15);
  dev.contention = true;
  EXPECT_NEAR(dev.modelConcurrentTime({copy, copy}),
              2 * copyMem + p.launchOverhead, 1e-15);
  double gemmCompute = gemm.flops / p.peakFlops;
  double gemmMem = gemm.bytes / p.memBandwidth;
  EXPECT_NEAR(
      dev.modelConcurrentTime({gemm, copy}),
      std::max({dev.modelTime(gemm), dev.modelTime(copy),
                std::max(gemmCompute, gemmMem + copyMem) + p.launchOverhead}),
      1e-15);
}

TEST(Nvml, MissingLibraryIsAClearError) {
  std::string err;
  auto dev = openNvmlDevice(0, err);
  if (dev)
    GTEST_SKIP() << "NVML present (" << dev->identity()
                 << "): covered by test/gpu/check.sh";
  EXPECT_NE(err.find("libnvidia-ml.so.1"), std::string::npos) << err;
}

TEST(SignatureDb, JsonHasEveryField) {
  Measurement m;
  m.key = "gemm";
  m.smMhz = 1410;
  m.s = 60;
  m.T = 1e-3;
  m.d = 0.2;
  m.varT = 1e-10;
  m.varD = 1e-6;
  m.runs = 10;
  std::string json =
      signatureDbJson("sim:A100-SXM4 (simulated)", {m}, "simulated");
  for (const char *field :
       {"\"version\": 1", "\"key\": \"gemm\"", "\"sm_mhz\": 1410",
        "\"s_W\": 60", "\"T_s\": 0.001", "\"d_J\": 0.2",
        "\"sigma_T_s\": 1.0000000000000001e-05", "\"sigma_d_J\": 0.001",
        "\"runs\": 10", "\"method\": \"simulated\""})
    EXPECT_NE(json.find(field), std::string::npos) << field << "\n" << json;
}

TEST(CApi, RegionsAccumulateAndFlushPerRank) {
  ::setenv("RANK", "3", 1);
  ASSERT_EQ(er_init("sim:a100"), 0) << er_last_error();
  EXPECT_EQ(er_rank(), 3);
  // Five regions of ten one-second copies each: long enough for the 100 ms
  // counter.
  for (int i = 0; i < 5; ++i) {
    ASSERT_EQ(er_begin("step"), 0) << er_last_error();
    for (int k = 0; k < 10; ++k)
      ASSERT_EQ(er_sim_run(0, 2.04e12), 0);
    ASSERT_EQ(er_end("step"), 0) << er_last_error();
  }
  double E, T;
  unsigned n;
  // A simulated device knows a window's energy when it ends: a ticket is
  // answered at once, even without waiting, as er_end_measure's (the same
  // work; the model's run-to-run noise apart).
  unsigned long long ticket = 0;
  double tT = 0, tE = 0, mE = 0, mT = 0;
  int mhz = 0, mMhz = 0;
  ASSERT_EQ(er_begin("one"), 0);
  ASSERT_EQ(er_sim_run(0, 2.04e12), 0);
  ASSERT_EQ(er_end_ticket("one", &ticket, &tT, &mhz), 0) << er_last_error();
  ASSERT_EQ(er_ticket_energy(ticket, /*wait=*/0, &tE), 0) << er_last_error();
  ASSERT_EQ(er_begin("one"), 0);
  ASSERT_EQ(er_sim_run(0, 2.04e12), 0);
  ASSERT_EQ(er_end_measure("one", &mE, &mT, &mMhz), 0) << er_last_error();
  EXPECT_NEAR(tT, 1.0, 0.05);
  EXPECT_NEAR(tE, 121.2, 0.05 * 121.2);
  EXPECT_NEAR(mE, 121.2, 0.05 * 121.2);
  EXPECT_NEAR(mT, 1.0, 0.05);
  EXPECT_EQ(mhz, mMhz);
  EXPECT_EQ(er_ticket_energy(ticket, 0, &tE), -1); // read once
  EXPECT_EQ(er_end_ticket("one", &ticket, nullptr, nullptr), -1);
  EXPECT_NE(std::string(er_last_error()).find("is not open"),
            std::string::npos);
  EXPECT_EQ(er_end_ticket(nullptr, &ticket, nullptr, nullptr), -1);
  ASSERT_EQ(er_result("step", &E, &T, &n), 0);
  EXPECT_EQ(n, 5u);
  EXPECT_NEAR(T, 50, 1.0);
  // Model: 60 W static + 30e-12 W/(B/s) x 2.04e12 B/s = 61.2 W dynamic.
  EXPECT_NEAR(E, 50 * (60 + 61.2), 0.03 * 50 * 121.2);
  EXPECT_EQ(er_end("step"), -1);
  EXPECT_NE(std::string(er_last_error()).find("is not open"),
            std::string::npos);
  // NULL and empty names are errors, never an exception across the C API.
  EXPECT_EQ(er_begin(nullptr), -1);
  EXPECT_NE(std::string(er_last_error()).find("needs a non-empty name"),
            std::string::npos);
  EXPECT_EQ(er_begin(""), -1);
  // A name that is not UTF-8 (the DB is JSON): refused, saying where; a
  // UTF-8 one is a name like any other.
  EXPECT_EQ(er_begin("r\xff"), -1);
  EXPECT_NE(std::string(er_last_error()).find("byte 1 (0xff)"),
            std::string::npos);
  EXPECT_EQ(er_begin("caf\xc3\xa9"), 0);
  EXPECT_EQ(er_end("caf\xc3\xa9"), 0);
  EXPECT_EQ(er_end(nullptr), -1);
  EXPECT_EQ(er_result(nullptr, &E, &T, &n), -1);
  EXPECT_EQ(er_flush(nullptr), -1);
  EXPECT_EQ(er_plan_clock(nullptr, 1410), -1);
  std::string path = ::testing::TempDir() + "energy-rt-%r.json";
  ASSERT_EQ(er_flush(path.c_str()), 0) << er_last_error();
  std::string shard = ::testing::TempDir() + "energy-rt-3.json";
  std::string json = readFile(shard);
  EXPECT_NE(json.find("\"key\": \"step\""), std::string::npos) << json;
  // A write that fails is an error, and the DB written before stays whole
  // (runtime/AtomicFile.h): /dev/full, and a directory that does not exist.
  EXPECT_EQ(er_flush("/dev/full"), -1);
  EXPECT_NE(std::string(er_last_error()).find("No space left on device"),
            std::string::npos)
      << er_last_error();
  EXPECT_EQ(er_flush((::testing::TempDir() + "no-such-dir/x.json").c_str()),
            -1);
  EXPECT_EQ(readFile(shard), json);
  std::remove(shard.c_str());
  // Everything is flushed: a re-init is allowed. Then a run not yet
  // flushed, and an open region: a second er_init would drop them, so it
  // is refused, saying what it holds; the region's totals stay.
  ASSERT_EQ(er_init("sim:a100"), 0) << er_last_error();
  ASSERT_EQ(er_begin("kept"), 0);
  ASSERT_EQ(er_sim_run(1e12, 0), 0);
  ASSERT_EQ(er_end("kept"), 0);
  ASSERT_EQ(er_begin("open"), 0);
  EXPECT_EQ(er_init("sim:h100"), -1);
  EXPECT_NE(std::string(er_last_error())
                .find("holds 1 run(s) not yet flushed and 1 open region(s)"),
            std::string::npos)
      << er_last_error();
  ASSERT_EQ(er_result("kept", &E, &T, &n), 0);
  EXPECT_EQ(n, 1u);
  ASSERT_EQ(er_end("open"), 0);
  ASSERT_EQ(er_flush(path.c_str()), 0) << er_last_error();
  std::remove(shard.c_str());
  EXPECT_EQ(er_init("sim:h100"), 0) << er_last_error();
  EXPECT_EQ(er_plan_load(nullptr), -1);
  EXPECT_NE(std::string(er_last_error()).find("er_plan_load: needs a path"),
            std::string::npos)
      << er_last_error();
  er_shutdown();
  EXPECT_EQ(er_begin("x"), -1);
  EXPECT_EQ(er_init("sim:v100"), -1);
  ::unsetenv("RANK");
}

// Following a plan in-process: the opt-in, the clocks set at each planned
// region's begin (and kept across unplanned ones), the per-region clock in
// the flushed DB, and the defaults restored at er_shutdown -- watched from
// outside through the simulated device's mirrored clock.
TEST(CApi, TwoSessionsOfOneProcessPoolOneFlushTwiceDoesNot) {
  // er_shutdown ends a session (its runs go); the next er_init starts
  // another, whose shard holds its own runs only: the two pool. Two flushes
  // of one session (the later holds every run of the earlier) do not.
  std::string dir = ::testing::TempDir() + "/sessions";
  ::mkdir(dir.c_str(), 0755);
  std::vector<std::string> paths = {dir + "/s1.json", dir + "/s1b.json",
                                    dir + "/s2.json"};
  for (int session = 0; session < 2; ++session) {
    ASSERT_EQ(er_init("sim:a100"), 0) << er_last_error();
    ASSERT_EQ(er_begin("r"), 0);
    ASSERT_EQ(er_sim_run(0, 2.04e11), 0);
    ASSERT_EQ(er_end("r"), 0);
    ASSERT_EQ(er_flush(paths[2 * session].c_str()), 0) << er_last_error();
    if (session == 0)
      ASSERT_EQ(er_flush(paths[1].c_str()), 0) << er_last_error();
    er_shutdown();
  }
  std::vector<SignatureDb> dbs(3);
  std::string err;
  for (int i = 0; i < 3; ++i)
    ASSERT_TRUE(readSignatureDb(paths[i], dbs[i], err)) << err;
  SignatureDb out;
  ASSERT_TRUE(poolSignatureDbs({dbs[0], dbs[2]}, {"s1", "s2"}, out, err))
      << err;
  ASSERT_EQ(out.entries.size(), 1u);
  EXPECT_EQ(out.entries[0].runs, 2);
  EXPECT_EQ(out.sources.size(), 2u);
  EXPECT_FALSE(poolSignatureDbs({dbs[0], dbs[1]}, {"s1", "s1b"}, out, err));
  EXPECT_NE(err.find("same shard twice"), std::string::npos) << err;
}

TEST(CApi, FollowsAPlanRegionByRegion) {
  std::string mirror = ::testing::TempDir() + "energy-rt-plan-clock-" +
                       std::to_string(::getpid());
  ::setenv("ENERGY_RT_SIM_STATE", mirror.c_str(), 1);
  ::unsetenv("ENERGY_RT_ALLOW_CLOCK_CHANGES");
  ASSERT_EQ(er_init("sim:a100"), 0) << er_last_error();
  EXPECT_EQ(er_plan_clock("F0", 900), -1) << "changing clocks is opt-in";
  EXPECT_NE(std::string(er_last_error()).find("ENERGY_RT_ALLOW_CLOCK_CHANGES"),
            std::string::npos);
  ::setenv("ENERGY_RT_ALLOW_CLOCK_CHANGES", "1", 1);
  EXPECT_EQ(er_plan_clock("F0", 901), -1) << "not a supported clock";
  std::string plan = ::testing::TempDir() + "energy-rt-plan.txt";
  {
    FILE *f = std::fopen(plan.c_str(), "w");
    std::fputs("# iteration on stage0\nF0 900\n\nB0 1200  # backward\n", f);
    std::fclose(f);
  }
  ASSERT_EQ(er_plan_load(plan.c_str()), 0) << er_last_error();
  int mhz = 0;
  unsigned switches = 0;
  auto region = [&](const char *name) {
    ASSERT_EQ(er_begin(name), 0) << er_last_error();
    ASSERT_EQ(er_sm_clock(&mhz, &switches), 0);
    ASSERT_EQ(er_sim_run(1e12, 1e9), 0);
    ASSERT_EQ(er_end(name), 0) << er_last_error();
  };
  region("F0");
  EXPECT_EQ(mhz, 900);
  EXPECT_EQ(switches, 1u);
  EXPECT_EQ(readFile(mirror), "900");
  region("optimizer"); // not in the plan: the clock persists
  EXPECT_EQ(mhz, 900);
  region("B0");
  EXPECT_EQ(mhz, 1200);
  region("F0");
  EXPECT_EQ(mhz, 900);
  EXPECT_EQ(switches, 3u);
  std::string db = ::testing::TempDir() + "energy-rt-plan-db.json";
  ASSERT_EQ(er_flush(db.c_str()), 0) << er_last_error();
  std::string json = readFile(db);
  EXPECT_NE(json.find("\"key\": \"B0\", \"sm_mhz\": 1200"), std::string::npos)
      << json;
  EXPECT_NE(json.find("\"key\": \"F0\", \"sm_mhz\": 900"), std::string::npos);
  er_shutdown();
  EXPECT_EQ(readFile(mirror), "1410") << "defaults restored at shutdown";
  // A malformed plan line is named.
  ASSERT_EQ(er_init("sim:a100"), 0);
  {
    FILE *f = std::fopen(plan.c_str(), "w");
    std::fputs("F0 900\nB0 fast\n", f);
    std::fclose(f);
  }
  EXPECT_EQ(er_plan_load(plan.c_str()), -1);
  EXPECT_NE(std::string(er_last_error()).find("plan.txt:2: expected"),
            std::string::npos)
      << er_last_error();
  er_shutdown();
  ::unsetenv("ENERGY_RT_ALLOW_CLOCK_CHANGES");
  ::unsetenv("ENERGY_RT_SIM_STATE");
  std::remove(plan.c_str());
  std::remove(db.c_str());
  std::remove(mirror.c_str());
}

} // namespace

namespace {

/// In a forked child: er_init on the simulated A100 with its clock mirrored
/// to `mirror`, a plan region at 900 MHz begun, then `then()`.
template <typename F> pid_t childAt900(const std::string &mirror, F then) {
  pid_t pid = ::fork();
  if (pid != 0)
    return pid;
  // A foreground program's dispositions (background launchers such as lit
  // leave SIGINT and SIGQUIT ignored, which a guard respects).
  for (int sig : {SIGHUP, SIGQUIT, SIGABRT, SIGSEGV, SIGPIPE, SIGUSR1})
    std::signal(sig, SIG_DFL);
  ::setenv("ENERGY_RT_SIM_STATE", mirror.c_str(), 1);
  ::setenv("ENERGY_RT_ALLOW_CLOCK_CHANGES", "1", 1);
  if (er_init("sim:a100") || er_plan_clock("F0", 900) || er_begin("F0"))
    ::_exit(99);
  then();
  ::_exit(0);
}

std::string mirrorPath(const char *what) {
  return ::testing::TempDir() + "energy-rt-signal-" + what + "-" +
         std::to_string(::getpid());
}

// Every fatal signal restores the clock, then the program's own fate
// follows: the default action (the exit status says the signal), the
// application's handler (chained, not replaced), or nothing for a signal
// the application ignores.
TEST(CApi, FatalSignalsRestoreTheClockAndChain) {
  for (int sig : {SIGHUP, SIGQUIT, SIGABRT, SIGSEGV, SIGPIPE, SIGUSR1}) {
    std::string mirror = mirrorPath("default");
    pid_t pid = childAt900(mirror, [&] {
      if (sig == SIGSEGV)
        std::raise(SIGSEGV); // as a fault would, without undefined behaviour
      else if (sig == SIGABRT)
        std::abort();
      else
        std::raise(sig);
    });
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig)
        << "signal " << sig << ": status " << status;
    EXPECT_EQ(readFile(mirror), "1410") << "signal " << sig;
    std::remove(mirror.c_str());
  }
  // The application's SIGTERM handler (its checkpoint) still runs, after
  // the restore.
  std::string mirror = mirrorPath("chained");
  pid_t pid = ::fork();
  if (pid == 0) {
    struct sigaction sa = {};
    sa.sa_handler = [](int) { ::_exit(42); };
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, nullptr);
    ::setenv("ENERGY_RT_SIM_STATE", mirror.c_str(), 1);
    ::setenv("ENERGY_RT_ALLOW_CLOCK_CHANGES", "1", 1);
    if (er_init("sim:a100") || er_plan_clock("F0", 900) || er_begin("F0"))
      ::_exit(99);
    std::raise(SIGTERM);
    ::_exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 42) << status;
  EXPECT_EQ(readFile(mirror), "1410");
  std::remove(mirror.c_str());
  // A SIGINT the application ignores stays ignored.
  mirror = mirrorPath("ignored");
  pid = ::fork();
  if (pid == 0) {
    std::signal(SIGINT, SIG_IGN);
    ::setenv("ENERGY_RT_SIM_STATE", mirror.c_str(), 1);
    ::setenv("ENERGY_RT_ALLOW_CLOCK_CHANGES", "1", 1);
    if (er_init("sim:a100") || er_plan_clock("F0", 900) || er_begin("F0"))
      ::_exit(99);
    std::raise(SIGINT);
    ::_exit(readFile(mirror) == "900" ? 7 : 8); // still running, still 900
  }
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 7) << status;
  // It exited (_exit) with the clock at 900: its record brings it back.
  std::string log, err;
  int restored = 0;
  for (const RestoreOutcome &o : restoreStale(err)) {
    restored += o.kind == RestoreOutcome::Restored;
    log += describe(o) + "\n";
  }
  EXPECT_GE(restored, 1) << log << err;
  EXPECT_EQ(readFile(mirror), "1410") << log;
  std::remove(mirror.c_str());
}

// A signal the program handles and goes on from (a checkpoint trigger's
// SIGUSR1) resets the clock before its handler, and the device stays
// guarded with its restore record (a SIGKILL later is still restored by
// it): the plan sets its clock again at the next planned region, a later
// fatal signal restores again, and no restore record is left behind.
TEST(CApi, AHandledSignalLeavesTheDeviceGuarded) {
  std::string mirror = mirrorPath("handled");
  std::string dir = ::testing::TempDir() + "energy-rt-handled-records-" +
                    std::to_string(::getpid());
  ::mkdir(dir.c_str(), 0700);
  pid_t pid = ::fork();
  if (pid == 0) {
    struct sigaction sa = {};
    sa.sa_handler = [](int) {}; // the checkpoint, then on
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR1, &sa, nullptr);
    std::signal(SIGTERM, SIG_DFL);
    ::setenv("ENERGY_RT_SIM_STATE", mirror.c_str(), 1);
    ::setenv("ENERGY_RT_STATE_DIR", dir.c_str(), 1);
    ::setenv("ENERGY_RT_ALLOW_CLOCK_CHANGES", "1", 1);
    if (er_init("sim:a100") || er_plan_clock("F0", 900) || er_begin("F0") ||
        er_sim_run(1e10, 1e8))
      ::_exit(99);
    std::raise(SIGUSR1);
    if (readFile(mirror) != "1410") // reset before the handler
      ::_exit(10);
    if (er_end("F0"))
      ::_exit(11);
    if (er_begin("F0") || readFile(mirror) != "900") // set again
      ::_exit(12);
    int records = 0;
    if (DIR *d = ::opendir(dir.c_str())) {
      while (dirent *e = ::readdir(d))
        records += std::string(e->d_name).find(".record") != std::string::npos;
      ::closedir(d);
    }
    if (records != 1) // the one record, kept through the reset
      ::_exit(14);
    std::raise(SIGTERM); // a fatal signal still restores
    ::_exit(13);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM)
      << (WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  EXPECT_EQ(readFile(mirror), "1410");
  // No record left: every reset dropped its own.
  int left = 0;
  if (DIR *d = ::opendir(dir.c_str())) {
    while (dirent *e = ::readdir(d))
      left += std::string(e->d_name).find(".record") != std::string::npos;
    ::closedir(d);
  }
  EXPECT_EQ(left, 0);
  std::remove(mirror.c_str());
  ::rmdir(dir.c_str());
}

} // namespace

namespace {

// ENERGY_RT_FLUSH_AT_EXIT's shard is also written during the job: a
// profiling rank killed where no exit path runs (SIGKILL here; SIGSEGV,
// SIGABRT, os._exit, the OOM killer alike) leaves the clocks it finished.
TEST(CApi, AKilledProfileKeepsItsFinishedClocks) {
  std::string shard = ::testing::TempDir() + "energy-rt-killed-" +
                      std::to_string(::getpid()) + ".json";
  std::remove(shard.c_str());
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::setenv("ENERGY_RT_FLUSH_AT_EXIT", shard.c_str(), 1);
    ::setenv("ENERGY_RT_PROFILE_CLOCKS", "1410,1200,990", 1);
    ::setenv("ENERGY_RT_PROFILE_WARMUP", "1", 1);
    ::setenv("ENERGY_RT_PROFILE_ITERATIONS", "2", 1);
    ::setenv("ENERGY_RT_ALLOW_CLOCK_CHANGES", "1", 1);
    ::setenv("ENERGY_RT_SIM_STATE", (shard + ".clock").c_str(),
             1); // not a shared mirror
    if (er_init("sim:a100") != 0)
      ::_exit(2);
    // Warm-up, then 1410 and 1200 MHz twice each: 5 steps; the sweep has
    // 990 MHz to go when the process dies.
    for (int it = 0; it < 5; ++it) {
      if (er_begin("stage0.forward") || er_sim_run(1e12, 1e9) ||
          er_end("stage0.forward") || er_step())
        ::_exit(3);
    }
    char c = 'x';
    ssize_t w = ::write(ready[1], &c, 1);
    (void)w;
    for (;;)
      ::pause();
  }
  char c;
  ASSERT_EQ(::read(ready[0], &c, 1), 1);
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  EXPECT_TRUE(WIFSIGNALED(status));
  std::string json = readFile(shard);
  EXPECT_NE(json.find("\"sm_mhz\": 1410"), std::string::npos) << json;
  EXPECT_NE(json.find("\"sm_mhz\": 1200"), std::string::npos) << json;
  EXPECT_EQ(json.find("\"sm_mhz\": 990"), std::string::npos) << json;
  ::close(ready[0]);
  ::close(ready[1]);
  std::remove(shard.c_str());
  std::remove((shard + ".clock").c_str());
}

// Adaptive profiling of a job of two ranks: each rank runs the clock the
// job's energy chooses, whatever its own work. Rank 0 is compute bound (its
// energy valley near 960 MHz ends its coarse sweep at 660 MHz), rank 1
// memory bound (a flatter curve): choosing alone, they ran different clocks
// at the same iterations (1335 and 1035 MHz against 735), and the pooled DB
// held more clocks than the budget.
TEST(CApi, AdaptiveRanksChooseTheSameClocks) {
  std::string dir =
      ::testing::TempDir() + "energy-rt-adaptive-" + std::to_string(::getpid());
  ::mkdir(dir.c_str(), 0700);
  pid_t pids[2];
  for (int rank = 0; rank < 2; ++rank) {
    pids[rank] = ::fork();
    ASSERT_GE(pids[rank], 0);
    if (pids[rank] == 0) {
      ::setenv("RANK", std::to_string(rank).c_str(), 1);
      ::setenv("WORLD_SIZE", "2", 1);
      ::setenv("ENERGY_RT_PROFILE_SYNC_DIR", dir.c_str(), 1);
      ::setenv("ENERGY_RT_PROFILE_CLOCKS", "adaptive:8", 1);
      ::setenv("ENERGY_RT_PROFILE_WARMUP", "1", 1);
      ::setenv("ENERGY_RT_PROFILE_ITERATIONS", "1", 1);
      ::setenv("ENERGY_RT_ALLOW_CLOCK_CHANGES", "1", 1);
      ::setenv("ENERGY_RT_SIM_STATE",
               (dir + "/clock" + std::to_string(rank)).c_str(), 1);
      if (er_init("sim:a100") != 0)
        ::_exit(2);
      for (int it = 0; it < 12; ++it)
        if (er_begin("work") ||
            (rank == 0 ? er_sim_run(1e13, 0) : er_sim_run(0, 4e11)) ||
            er_end("work") || er_step())
          ::_exit(3);
      ::_exit(er_flush((dir + "/shard-%r.json").c_str()) == 0 ? 0 : 4);
    }
  }
  for (pid_t pid : pids) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
  }
  std::vector<std::set<int>> clocks(2);
  for (int rank = 0; rank < 2; ++rank) {
    std::string json =
        readFile(dir + "/shard-" + std::to_string(rank) + ".json");
    for (size_t at = json.find("\"sm_mhz\": "); at != std::string::npos;
         at = json.find("\"sm_mhz\": ", at + 1))
      clocks[rank].insert(std::atoi(json.c_str() + at + 10));
  }
  EXPECT_GE(clocks[0].size(), 2u);
  EXPECT_LE(clocks[0].size(), 8u);
  EXPECT_EQ(clocks[0], clocks[1]);
  // Without the directory a job of several ranks is refused at start-up.
  pid_t pid = ::fork();
  if (pid == 0) {
    ::setenv("WORLD_SIZE", "2", 1);
    ::unsetenv("ENERGY_RT_PROFILE_SYNC_DIR");
    ::setenv("ENERGY_RT_PROFILE_CLOCKS", "adaptive", 1);
    ::setenv("ENERGY_RT_ALLOW_CLOCK_CHANGES", "1", 1);
    bool refused =
        er_init("sim:a100") != 0 &&
        std::string(er_last_error()).find("ENERGY_RT_PROFILE_SYNC_DIR") !=
            std::string::npos;
    ::_exit(refused ? 0 : 1);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

// Region names are per thread: eight threads measuring the same step do not
// collide (393,585 of 800,000 er_begin calls used to fail), and er_result
// pools them by name.
TEST(CApi, SameNameInManyThreads) {
  ASSERT_EQ(er_init("sim:a100"), 0) << er_last_error();
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int k = 0; k < 8; ++k)
    threads.emplace_back([&] {
      for (int i = 0; i < 2000; ++i)
        if (er_begin("step") != 0 || er_end("step") != 0)
          ++failures;
    });
  for (std::thread &t : threads)
    t.join();
  EXPECT_EQ(failures.load(), 0);
  double E, T;
  unsigned n;
  ASSERT_EQ(er_result("step", &E, &T, &n), 0) << er_last_error();
  EXPECT_EQ(n, 16000u);
  // A thread cannot end another thread's region.
  ASSERT_EQ(er_begin("mine"), 0);
  std::thread([] { EXPECT_EQ(er_end("mine"), -1); }).join();
  EXPECT_EQ(er_end("mine"), 0);
  er_shutdown();
}

} // namespace

// A restore record names its process by pid, start time, boot and PID
// namespace: a record of another PID namespace (a container's process,
// whose pid means another process here) is left alone unless forced, and
// a pid that a new process reuses is gone. Restored, the device gets back
// what the record says was changed: the power limit it had before.
TEST(RestoreRecords, TellLiveFromGoneHolders) {
  std::string dir =
      ::testing::TempDir() + "energy-rt-holders-" + std::to_string(::getpid());
  ::mkdir(dir.c_str(), 0700);
  ::setenv("ENERGY_RT_STATE_DIR", dir.c_str(), 1);
  std::string clock = dir + "/clock", power = dir + "/power";
  auto write = [](const std::string &path, const std::string &text) {
    FILE *f = std::fopen(path.c_str(), "w");
    ASSERT_TRUE(f);
    std::fputs(text.c_str(), f);
    std::fclose(f);
  };
  auto record = [&](const std::string &extra) {
    write(dir + "/t.record",
          "energy-rt restore record 1\npid " + std::to_string(::getpid()) +
              "\ndevice sim:a100-sxm4\nclock_file " + clock + "\npower_file " +
              power + "\nclock_changed 1\npower_changed 1\npower_prior_W " +
              "250\n" + extra);
  };
  auto outcomes = [&](bool force) {
    std::string err, log;
    std::vector<RestoreOutcome::Kind> kinds;
    for (const RestoreOutcome &o : restoreStale(err, force)) {
      kinds.push_back(o.kind);
      log += describe(o) + "\n";
    }
    EXPECT_EQ(err, "");
    return std::make_pair(kinds, log);
  };
  write(clock, "900");
  write(power, "300");
  record("pid_ns pid:[1]\n"); // not this process's namespace
  auto [kinds, log] = outcomes(false);
  ASSERT_EQ(kinds.size(), 1u) << log;
  EXPECT_EQ(kinds[0], RestoreOutcome::Unverifiable) << log;
  EXPECT_NE(log.find("another PID namespace"), std::string::npos) << log;
  EXPECT_EQ(readFile(clock), "900") << "left alone";
  SimGpu params;
  ASSERT_TRUE(simGpuFor("a100", params));
  SimDevice probe(params, 1);
  probe.clockStateFile = clock;
  std::string held;
  EXPECT_TRUE(heldByAnotherProcess(probe, held));
  EXPECT_NE(held.find("--force"), std::string::npos) << held;
  std::tie(kinds, log) = outcomes(true);
  ASSERT_EQ(kinds.size(), 1u) << log;
  EXPECT_EQ(kinds[0], RestoreOutcome::Restored) << log;
  EXPECT_EQ(readFile(clock), "1410");
  EXPECT_EQ(readFile(power), "250") << "the limit it had, not the default";
  EXPECT_NE(log.find("the power limit it had (250 W)"), std::string::npos)
      << log;
  // This process's pid with another start time: a process now gone.
  write(clock, "900");
  record("start_time 1\n");
  std::tie(kinds, log) = outcomes(false);
  ASSERT_EQ(kinds.size(), 1u) << log;
  EXPECT_EQ(kinds[0], RestoreOutcome::Restored) << log;
  EXPECT_EQ(readFile(clock), "1410");
  // A record that says only the power limit changed leaves the clock.
  write(clock, "900");
  write(dir + "/t.record", "energy-rt restore record 1\npid 999999999\n"
                           "device sim:a100-sxm4\nclock_file " +
                               clock + "\npower_file " + power +
                               "\nclock_changed 0\npower_changed 1\n");
  std::tie(kinds, log) = outcomes(false);
  ASSERT_EQ(kinds.size(), 1u) << log;
  EXPECT_EQ(kinds[0], RestoreOutcome::Restored) << log;
  EXPECT_EQ(readFile(clock), "900");
  EXPECT_EQ(readFile(power), "400") << "the default, its prior unknown";
  ::unsetenv("ENERGY_RT_STATE_DIR");
  std::remove(clock.c_str());
  std::remove(power.c_str());
  ::rmdir(dir.c_str());
}
