//===- CApi.cpp - measure named regions of a running program --------------===//

#include "runtime/include/energy_rt.h"

#include "calculus/PowerCap.h"

#include "runtime/AtomicFile.h"
#include "runtime/Characterize.h"
#include "runtime/JsonQuote.h"
#include "runtime/MetricsServer.h"
#include "runtime/Nvml.h"
#include "runtime/Progress.h"
#include "runtime/RestoreRecord.h"
#include "runtime/Sampler.h"
#include "runtime/SimDevice.h"
#include "runtime/Version.h"
#include "runtime/db/SignatureDb.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <pthread.h>
#include <set>
#include <sstream>
#include <string>
#include <strings.h>
#include <sys/stat.h>
#include <thread>
#include <tuple>
#include <unistd.h>
#include <utility>
#include <vector>

using namespace energy::rt;
namespace calculus = energy::calculus;

namespace {
/// Runs of one region at one operating point: sufficient statistics.
struct Stats {
  unsigned count = 0;
  double sumE = 0, sumT = 0, sumE2 = 0, sumT2 = 0;
  double sumET = 0; ///< for Cov(E, T): d = E - s T varies with both
  void add(double E, double T) {
    ++count;
    sumE += E;
    sumT += T;
    sumE2 += E * E;
    sumT2 += T * T;
    sumET += E * T;
  }
  void add(const Stats &o) {
    count += o.count;
    sumE += o.sumE;
    sumT += o.sumT;
    sumE2 += o.sumE2;
    sumT2 += o.sumT2;
    sumET += o.sumET;
  }
};

struct Region {
  bool open = false;
  int smMhz = 0;      ///< the clock of its current (or last) run
  bool record = true; ///< the current run counts (not a profile warm-up)
  double startJ = 0;  ///< simulated devices: the model's energy at begin
  double startT = 0;
  /// The runtime's clock changes before its current run began
  /// (State::clockChanges): a run during which it changed the clock has no
  /// one clock's signature.
  unsigned long long clockChangesAtBegin = 0;
  /// The sampler's polls that found another process holding the device,
  /// before the current run began (EnergySampler::foreignPolls).
  unsigned long long foreignAtBegin = 0;
  bool foreignAtStart = false;
  Stats all; ///< every recorded run
  /// The same runs, per SM clock and power cap in force (a loaded plan's;
  /// 0 W: none), not those across a change of either.
  std::map<std::pair<int, double>, Stats> byClock;
  uint64_t acrossClocks = 0; ///< recorded runs across a clock change
  /// State::planBegins when its current run began, and whether a region
  /// the plan names began during one of its runs (a window around planned
  /// regions, not a region the plan lacks).
  uint64_t planBeginsAtBegin = 0;
  bool enclosesPlanned = false;
  /// Its current run is one of a region the plan names; a run of it began
  /// while one of those was open (nested inside a planned region, it ran
  /// at that region's clock: not a region the plan lacks).
  bool plannedRun = false, insidePlanned = false;
  /// A planned run's clock (0: "-", the clock in force) and the order it
  /// began in (State::beginSerial): a nested planned region's end sets the
  /// innermost open planned region's clock back.
  int plannedMhz = 0;
  uint64_t beginSerial = 0;
};

/// A region's identity: its name, the thread that opens it, and the set of
/// names it belongs to (er_begin_in's owner; 0 for er_begin's): the same
/// name in two threads or two sets is two regions, pooled by name.
struct RegionKey {
  std::string name;
  uint64_t thread; ///< threadSerial(): a thread's std::thread::id is reused
  unsigned owner;
  bool operator<(const RegionKey &o) const {
    return std::tie(name, thread, owner) < std::tie(o.name, o.thread, o.owner);
  }
};

/// This thread's number, never another's: a thread that ended with a region
/// open left it under its std::thread::id, which a later thread can get,
/// and that thread's region of the same name was then "already open".
uint64_t threadSerial() {
  static std::atomic<uint64_t> next{1};
  thread_local uint64_t serial = next++;
  return serial;
}

/// A finished run of a region whose energy waits for the counter to move
/// past its end (real devices: the sampler's curve).
struct Pending {
  Region *region;
  double t0, t1;
  int smMhz;   ///< 0: the run spanned a clock change
  double capW; ///< the power cap in force (0: none)
  bool record;
  /// er_end_ticket's ticket (0: none), under which the energy is kept.
  unsigned long long ticket;
};

/// Profiling inside the job, across clocks (ENERGY_RT_PROFILE_CLOCKS),
/// across power limits (ENERGY_RT_PROFILE_POWER_LIMITS) or both (every
/// limit with every clock under it): `warmup` iterations at the defaults,
/// then `perClock` iterations at each clock, limit or pair of the lists,
/// then the defaults again (er_step marks the iterations).
struct Profile {
  std::vector<int> clocks; ///< empty: limits alone, at the default clock
  /// Power limits (W), as Zeus's GlobalPowerLimitOptimizer profiles: a
  /// limit takes effect over hundreds of milliseconds, so the first
  /// `settle` iterations at each limit (with clocks, at its first and
  /// highest clock: phasePosition) are run and not recorded
  /// (ENERGY_RT_PROFILE_SETTLE, default 1). Empty: clocks alone.
  std::vector<double> caps;
  unsigned warmup = 2, perClock = 3, settle = 0;
  unsigned step = 0;
  bool active = false;
  /// The iteration running now is one of a limit's settling ones, and
  /// whether a handled signal reset the limit since the last er_step (the
  /// next iteration settles too).
  bool settling = false, resetSeen = false;
  /// ENERGY_RT_POWER_LIMIT_CHOICE chose the limit in force: the job goes on
  /// under it and its regions are recorded again.
  bool chosen = false;
  /// ENERGY_RT_POWER_LIMIT_CHOICE: once the sweep of limits is over, the
  /// limit its iterations say (calculus::choosePowerCap, the objective of
  /// --energy-power-cap) is set for the rest of the job, as Zeus's
  /// GlobalPowerLimitOptimizer does.
  std::optional<calculus::CapObjective> choice;
  /// Per limit: its recorded iterations' window, from the er_step before
  /// the first to the one after the last (device time; on a simulated
  /// device its energy too), and whether a limit change the sweep did not
  /// make (a handled signal's reset) fell inside it.
  struct Window {
    double t0 = NAN, e0 = 0, t1 = NAN, e1 = 0;
    unsigned long long changesAtOpen = 0;
    bool disturbed = false;
  };
  std::vector<Window> windows;
  /// The sweep is over: later runs are not the profile's (they would add
  /// the default clock, or pool into it, beyond the clocks asked for).
  bool done = false;
  /// er_restore ended the sweep before its last clock: later runs are not
  /// the profile's either, and the exit says it was cut short.
  bool interrupted = false;
  /// ENERGY_RT_PROFILE_CLOCKS=adaptive[:B]: the clocks are chosen as the
  /// sweep goes (chooseNextClock), at most B of them.
  bool adaptive = false;
  size_t budget = 8;
  bool coarseDone = false, chosenAll = false;
  std::vector<int> supported;     ///< descending
  std::map<int, double> energyAt; ///< per-iteration energy of all regions
  /// A job of several ranks chooses its clocks together: each rank's
  /// energy at a clock is written to `syncDir` and every rank chooses from
  /// the job's sum (ENERGY_RT_PROFILE_SYNC_DIR; energy-prof profile sets
  /// it), so that all run the same clock at each iteration.
  std::string syncDir;
  int world = 1;
};

/// Pending runs resolved without waiting once this many accumulate.
constexpr size_t kResolveBatch = 4096;
/// How long er_result / er_flush wait for the counter to pass the last
/// region's end (it updates about every 100 ms).
constexpr double kCounterWait = 2.0;
/// Resolved tickets kept unread at most (the oldest go first): a program
/// that never reads or releases them stays bounded (~50 MB).
constexpr size_t kTicketsKept = size_t(1) << 20;

struct State {
  std::mutex mu;
  std::unique_ptr<Device> dev;
  /// er_init calls so far: a shard names its process and session (after
  /// er_shutdown a new session starts with no runs).
  unsigned session = 0;
  SimDevice *sim = nullptr;
  /// Real devices: the energy counter polled on a thread (Sampler.h);
  /// simulated ones (virtual time) read it at region boundaries.
  std::unique_ptr<EnergySampler> sampler;
  std::vector<Pending> pending;
  /// er_end_ticket: the energies resolved and not yet read or released,
  /// and the ends of the pending runs whose tickets are held.
  std::map<unsigned long long, double> tickets;
  std::map<unsigned long long, double> pendingTickets;
  unsigned long long nextTicket = 1;
  double resolvedUpTo = -1e300; ///< the curve's end at the last resolution
  /// This process was forked from one that had called er_init.
  bool forked = false;
  double staticPower = 0;
  /// Per (name, thread): a name is one region per thread, so that threads
  /// measuring the same step do not collide; er_result and er_flush pool
  /// them by name (their sums are sufficient statistics: exact).
  std::map<RegionKey, Region> regions;
  std::string error;
  /// Plan following: region -> SM clock; the guard restores the defaults.
  std::map<std::string, int> planClocks;
  /// The power cap a loaded plan set (its guard restores the limit before).
  std::optional<double> planPowerCapW;
  /// The power limit a profile across limits set for its current phase.
  std::optional<double> profileCapW;
  /// Regions a complete plan file (plan-clocks: every task of its device)
  /// leaves at the clock in force ("name -"), and whether one was loaded:
  /// a region that ran and is in neither is not the planned job's.
  std::set<std::string> planKept;
  bool planComplete = false;
  /// Begins of regions the plan names (with a clock or "-").
  uint64_t planBegins = 0;
  /// Whether any region the plan names has begun (warned about at exit
  /// when none has: the job's region names and the plan's differ).
  bool planRegionRan = false;
  /// Begins of each region name since the last er_step (or er_init): a
  /// plan's "name[k]" line is the clock of name's k-th begin (from 0) in
  /// an iteration, before a "name" line.
  std::map<std::string, uint64_t> occurrences;
  /// The plan's names ("name" or "name[k]") some begin matched, and per
  /// region name the begins, under a loaded plan, that none matched (their
  /// count, and the first one's occurrence in its iteration).
  std::set<std::string> planKeysRan;
  std::map<std::string, std::pair<uint64_t, uint64_t>> unplannedBegins;
  /// er_step calls since er_init; region begins (their order); whether two
  /// threads' planned regions were said to overlap.
  uint64_t steps = 0, beginSerial = 0;
  bool saidPlannedThreads = false;
  std::unique_ptr<ClockGuard> guard;
  unsigned switches = 0;
  /// Every clock change the runtime made (a profile's, a plan's, the
  /// profile's return to the default).
  unsigned long long clockChanges = 0;
  /// er_restore ran: the plan's clocks are no longer applied.
  bool clocksReleased = false;
  /// signalResetCount() when last looked at (noticeSignalResets).
  unsigned long long signalResetsSeen = 0;
  /// Runs of planned regions open now (Region::insidePlanned).
  unsigned openPlanned = 0;
  /// er_sim_run calls since er_init, and whether a window that measured
  /// nothing before any was said.
  uint64_t simRuns = 0;
  bool saidNoSimWork = false;
  bool saidForeignHolder = false;
  /// The sampler's descriptor of the device's lock file (closed in a
  /// forked child).
  std::shared_ptr<int> lockPollFd;
  Profile profile;
  /// ENERGY_RT_FLUSH_AT_EXIT (empty: unset) and ENERGY_RT_FLUSH_INTERVAL:
  /// the shard is also written during the job (checkpointShard).
  std::string flushAtExit;
  /// Runs accounted so far, and how many the last er_flush to flushAtExit
  /// (kept or refused) had seen: the at-exit flush does not repeat one
  /// that Python's exit path already made (the same shard, or the same
  /// error, twice).
  uint64_t runsAccounted = 0;
  std::optional<uint64_t> runsAtExitFlush;
  /// runsAccounted at the last er_flush that wrote its file: a re-init
  /// refuses to drop runs recorded since.
  uint64_t runsAtFlush = 0;
  double flushInterval = 60;
  std::chrono::steady_clock::time_point lastCheckpoint;
  /// Regions said to have taken no time on a virtual-time simulated device
  /// (writeShard warns once per region).
  std::set<std::string> warnedFree;
  /// A worker of a measuring process (er_init): it neither serves metrics
  /// nor writes the rank's textfile.
  bool worker = false;
  /// Regions (and clocks) whose runs drew less than static power x time
  /// (writeShard warns once each).
  std::set<std::tuple<std::string, int, double>> warnedBelowStatic;
  /// ENERGY_RT_METRICS_PORT: Prometheus scrapes over HTTP (opt-in). Last
  /// member: destroyed first, its thread stopped before the rest goes.
  MetricsServer metricsServer;
} state;

thread_local std::string lastError;

int fail(const std::string &msg) {
  lastError = msg;
  return -1;
}

/// fork() while initialized (a data loader's workers, say): the child has
/// a copy of the state but not the sampler's thread, and the device's
/// handles and settings are its parent's. The child forgets them without
/// destroying them (a join would wait on a thread that is not there; the
/// guard would reset the parent's clocks) and must call er_init itself.
void beforeFork() { state.mu.lock(); }
void afterForkParent() { state.mu.unlock(); }
void afterForkChild() {
  state.metricsServer.forgetAfterFork();
  if (state.dev) {
    // The parent's claim on the device, and the sampler's descriptor of
    // its lock, are the parent's: the child's copies go (a flock stays
    // while any descriptor of it is open: a DataLoader worker would hold
    // the device after its parent ended).
    state.dev->claim.release();
    if (state.lockPollFd && *state.lockPollFd >= 0) {
      ::close(*state.lockPollFd);
      *state.lockPollFd = -1;
    }
    (void)state.sampler.release();
    (void)state.guard.release();
    (void)state.dev.release();
    state.sim = nullptr;
    state.pending.clear();
    state.tickets.clear();
    state.pendingTickets.clear();
    state.regions.clear();
    state.planClocks.clear();
    state.planPowerCapW.reset();
    state.profileCapW.reset();
    state.planKept.clear();
    state.planComplete = false;
    state.occurrences.clear();
    state.planKeysRan.clear();
    state.unplannedBegins.clear();
    state.forked = true;
  }
  state.mu.unlock();
}

/// The "not initialized" error of `fn`, naming a fork where there was one.
/// A shard path with every "%r" replaced by this process's rank.
std::string withRank(std::string path) {
  std::string rank = std::to_string(er_rank());
  for (size_t at = path.find("%r"); at != std::string::npos;
       at = path.find("%r", at + rank.size()))
    path.replace(at, 2, rank);
  return path;
}

int notInitialized(const char *fn) {
  return fail(std::string(fn) +
              (state.forked ? ": this process was forked after er_init; "
                              "call er_init in it"
                            : " before er_init"));
}

/// Keeps a run's energy under its ticket until read or released.
void keepTicket(unsigned long long ticket, double E) {
  state.tickets[ticket] = E;
  if (state.tickets.size() > kTicketsKept)
    state.tickets.erase(state.tickets.begin());
}

/// A run into its region's totals, and into its clock's (and power cap's)
/// signature unless it spanned a change of either (smMhz 0).
void account(Region &r, double E, double T, int smMhz, double capW,
             bool record) {
  if (!record)
    return;
  ++state.runsAccounted;
  r.all.add(E, T);
  if (smMhz)
    r.byClock[{smMhz, capW}].add(E, T);
  else
    ++r.acrossClocks;
}

/// Every thread's runs of each name, pooled (caller holds state.mu), per
/// clock as well.
std::map<std::string, Region> pooledRegions() {
  std::map<std::string, Region> out;
  for (auto &[key, r] : state.regions) {
    Region &p = out[key.name];
    p.all.add(r.all);
    p.acrossClocks += r.acrossClocks;
    for (auto &[at, st] : r.byClock)
      p.byClock[at].add(st);
  }
  return out;
}

/// Resolves pending runs against the sampler's curve (caller holds
/// state.mu). Runs are pending in order of their ends, so the curve covers
/// a prefix. With `wait`, first waits for the counter to pass the last end
/// and fails if it does not. Then forgets the curve before the earliest run
/// still needing it.
bool resolvePending(bool wait, std::string &err) {
  EnergySampler *s = state.sampler.get();
  if (!s)
    return true;
  if (!state.pending.empty()) {
    if (wait && !s->waitCovered(state.pending.back().t1, kCounterWait, err))
      return false;
    double covered = s->coveredUntil();
    state.resolvedUpTo = covered;
    size_t k = 0;
    for (; k < state.pending.size() && state.pending[k].t1 <= covered; ++k) {
      const Pending &p = state.pending[k];
      double E;
      if (!s->energy(p.t0, p.t1, E, err))
        return false;
      account(*p.region, E, p.t1 - p.t0, p.smMhz, p.capW, p.record);
      // Kept unless released meanwhile.
      if (p.ticket && state.pendingTickets.erase(p.ticket))
        keepTicket(p.ticket, E);
    }
    state.pending.erase(state.pending.begin(), state.pending.begin() + k);
  }
  // Pending regions are in the order they ended, not started: an outer
  // region ends after the inner ones it holds but started before them, so
  // the history to keep reaches back to the earliest start of any of them
  // and of the open ones (infinity: nothing; the sampler then keeps its
  // horizon only -- the last change here would keep everything after it).
  double need = std::numeric_limits<double>::infinity();
  for (const Pending &p : state.pending)
    need = std::min(need, p.t0);
  for (auto &[key, r] : state.regions)
    if (r.open)
      need = std::min(need, r.startT);
  // A power-limit choice reads its windows' energy at the sweep's end.
  if (state.profile.choice && state.profile.active)
    for (const Profile::Window &w : state.profile.windows)
      if (!std::isnan(w.t0))
        need = std::min(need, w.t0);
  s->dropBefore(std::min(s->coveredUntil(), need));
  s->setKeepFrom(need);
  return true;
}
/// Every ENERGY_RT_* variable the runtime or its Python package reads.
constexpr const char *kKnownVariables[] = {"ENERGY_RT_ALLOW_CLOCK_CHANGES",
                                           "ENERGY_RT_DEVICE",
                                           "ENERGY_RT_FLUSH_AT_EXIT",
                                           "ENERGY_RT_FLUSH_INTERVAL",
                                           "ENERGY_RT_LIBRARY",
                                           "ENERGY_RT_LOCK_DIR",
                                           "ENERGY_RT_MEASURING_DEVICE",
                                           "ENERGY_RT_MEASURING_PID",
                                           "ENERGY_RT_METRICS_ADDRESS",
                                           "ENERGY_RT_METRICS_FILE",
                                           "ENERGY_RT_METRICS_INTERVAL",
                                           "ENERGY_RT_METRICS_PORT",
                                           "ENERGY_RT_PROFILE_CLOCKS",
                                           "ENERGY_RT_PROFILE_ITERATIONS",
                                           "ENERGY_RT_PROFILE_POWER_LIMITS",
                                           "ENERGY_RT_PROFILE_SETTLE",
                                           "ENERGY_RT_PROFILE_SYNC_DIR",
                                           "ENERGY_RT_PROFILE_WARMUP",
                                           "ENERGY_RT_SIM_REALTIME",
                                           "ENERGY_RT_SIM_SEED",
                                           "ENERGY_RT_SIM_STATE",
                                           "ENERGY_RT_STATE_DIR",
                                           "ENERGY_RT_WORKER",
                                           "ENERGY_RT_POWER_LIMIT_CHOICE"};

/// Levenshtein distance (the nearest known name for a misspelt one).
size_t editDistance(const std::string &a, const std::string &b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j)
    row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min(
          {row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

/// An ENERGY_RT_* variable the runtime does not read is a misspelling (a
/// profile that never runs, a plan's consent not given): said once per
/// process at er_init, with the nearest known name.
void warnUnknownVariables() {
  static bool said = false;
  if (said)
    return;
  said = true;
  for (char **e = environ; e && *e; ++e) {
    std::string entry = *e;
    std::string name = entry.substr(0, entry.find('='));
    if (name.rfind("ENERGY_RT_", 0) != 0 ||
        std::count(std::begin(kKnownVariables), std::end(kKnownVariables),
                   name))
      continue;
    std::string nearest;
    size_t best = SIZE_MAX;
    for (const char *known : kKnownVariables)
      if (size_t d = editDistance(name, known); d < best)
        best = d, nearest = known;
    std::fprintf(stderr,
                 "energy_rt: warning: %s is set but energy_rt reads no such "
                 "variable%s%s%s\n",
                 name.c_str(), best <= 3 ? " (did you mean " : "",
                 best <= 3 ? nearest.c_str() : "", best <= 3 ? "?)" : "");
  }
}

/// The job's size (WORLD_SIZE, SLURM_NTASKS or OMPI_COMM_WORLD_SIZE) and
/// the profile's sync directory (ENERGY_RT_PROFILE_SYNC_DIR): a choice
/// made from every rank's measurements (`who` `does` ...) needs one.
bool jobOfRanks(Profile &pf, const std::string &who, const std::string &does,
                std::string &why) {
  for (const char *var : {"WORLD_SIZE", "SLURM_NTASKS", "OMPI_COMM_WORLD_SIZE"})
    if (const char *n = std::getenv(var)) {
      char *end = nullptr;
      errno = 0;
      long w = std::strtol(n, &end, 10);
      if (end == n || *end || errno || w < 1 || w > (1L << 20)) {
        why = std::string(var) + "='" + n +
              "' is not a number of ranks (a whole number from 1)";
        return false;
      }
      pf.world = int(w);
      break;
    }
  if (const char *dir = std::getenv("ENERGY_RT_PROFILE_SYNC_DIR"))
    pf.syncDir = dir;
  if (pf.world > 1 && pf.syncDir.empty()) {
    why = who + " of a job of " + std::to_string(pf.world) + " ranks " + does +
          " from all ranks' energy: run it under "
          "energy-prof profile, or set ENERGY_RT_PROFILE_SYNC_DIR to a "
          "directory every rank can write";
    return false;
  }
  return true;
}

/// ENERGY_RT_POWER_LIMIT_CHOICE: "max-slowdown=PCT" (least energy within
/// that slowdown of the fastest limit) or "eta=E,max-power=W" (Zeus's
/// cost; eta defaults to 0.5), as --energy-power-cap takes them.
bool parseCapObjective(const std::string &text, calculus::CapObjective &obj,
                       std::string &why) {
  std::optional<double> slowdown, eta, maxPower;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t sep = text.find_first_of(", ", pos);
    std::string item = text.substr(
        pos, sep == std::string::npos ? std::string::npos : sep - pos);
    pos = sep == std::string::npos ? text.size() : sep + 1;
    if (item.empty())
      continue;
    size_t eq = item.find('=');
    std::string key = item.substr(0, eq);
    double v = NAN;
    if (eq != std::string::npos) {
      const char *num = item.c_str() + eq + 1;
      char *end = nullptr;
      errno = 0;
      v = std::strtod(num, &end);
      if (end == num || *end || errno || !std::isfinite(v))
        v = NAN;
    }
    std::optional<double> *slot = key == "max-slowdown" ? &slowdown
                                  : key == "eta"        ? &eta
                                  : key == "max-power"  ? &maxPower
                                                        : nullptr;
    if (!slot) {
      why = "'" + item +
            "' is not one of max-slowdown=PCT, eta=E and max-power=W";
      return false;
    }
    if (std::isnan(v) ||
        item.find_first_of("xX", eq == std::string::npos ? 0 : eq) !=
            std::string::npos) {
      why = "'" + item + "' needs a finite decimal number";
      return false;
    }
    if (*slot) {
      why = "'" + key + "' is given twice";
      return false;
    }
    *slot = v;
  }
  if (slowdown && (eta || maxPower)) {
    why = "give max-slowdown=PCT, or eta and max-power=W (Zeus's cost), not "
          "both";
    return false;
  }
  if (slowdown) {
    if (*slowdown < 0) {
      why = "max-slowdown is a non-negative percentage";
      return false;
    }
    obj.kind = calculus::CapObjective::MinEnergyUnderSlowdown;
    obj.maxSlowdownPct = *slowdown;
    return true;
  }
  if (!maxPower || !(*maxPower > 0)) {
    why = "needs max-slowdown=PCT, or max-power=W > 0 (with eta in [0, 1], "
          "default 0.5: Zeus's cost)";
    return false;
  }
  obj.kind = calculus::CapObjective::ZeusCost;
  obj.eta = eta.value_or(0.5);
  obj.maxPower = *maxPower;
  if (!(obj.eta >= 0 && obj.eta <= 1)) {
    why = "eta is in [0, 1]";
    return false;
  }
  return true;
}

/// The device's time and, on a simulated device, its energy now (a real
/// device's energy over a window comes from the sampler's curve).
void deviceReading(double &t, double &e) {
  e = 0;
  if (state.sampler)
    t = state.dev->now();
  else
    state.sim->exactEnergyAndTime(e, t);
}

/// A list's comma-separated items, empty ones included ("a,,b": a, "", b).
std::vector<std::string> splitCommas(const std::string &list) {
  std::vector<std::string> items;
  size_t pos = 0;
  for (;;) {
    size_t comma = list.find(',', pos);
    items.push_back(list.substr(
        pos, comma == std::string::npos ? std::string::npos : comma - pos));
    if (comma == std::string::npos)
      return items;
    pos = comma + 1;
  }
}

/// The launcher's job id where it gives one (".<id>", else empty), in the
/// names of the lines ranks leave in the profile's sync directory: a
/// directory an earlier job left its lines in does not answer for this one.
std::string jobSuffix() {
  for (const char *var :
       {"TORCHELASTIC_RUN_ID", "SLURM_JOB_ID", "OMPI_MCA_ess_base_jobid"})
    if (const char *id = std::getenv(var); id && *id) {
      std::string job;
      for (const char *c = id; *c && job.size() < 64; ++c)
        job += std::isalnum(static_cast<unsigned char>(*c)) ? *c : '_';
      return "." + job;
    }
  return "";
}

/// The variable that makes this process a profile (set and not empty):
/// ENERGY_RT_PROFILE_CLOCKS or ENERGY_RT_PROFILE_POWER_LIMITS; null if none.
const char *profileVariable() {
  for (const char *var :
       {"ENERGY_RT_PROFILE_CLOCKS", "ENERGY_RT_PROFILE_POWER_LIMITS"})
    if (const char *v = std::getenv(var); v && *v)
      return var;
  return nullptr;
}

/// Parses ENERGY_RT_PROFILE_CLOCKS ("1410,1200,990", "all" or "every:K",
/// highest first; `clockList`) and ENERGY_RT_PROFILE_POWER_LIMITS
/// ("300,250,200" W; `capList`), either or both (every limit with every
/// clock under it), with ENERGY_RT_PROFILE_WARMUP, _ITERATIONS and (limits)
/// _SETTLE, and starts the sweep (caller holds state.mu; the device is
/// open). Changing clocks or limits is the same explicit opt-in as
/// following a plan.
bool startProfile(const char *capList, const char *clockList,
                  std::string &why) {
  bool caps = capList != nullptr, clocks = clockList != nullptr;
  const char *allow = std::getenv("ENERGY_RT_ALLOW_CLOCK_CHANGES");
  if (!allow || std::string(allow) != "1") {
    why = std::string(caps && clocks ? "ENERGY_RT_PROFILE_POWER_LIMITS and "
                                       "ENERGY_RT_PROFILE_CLOCKS change the "
                                       "power limit and SM clocks"
                      : caps ? "ENERGY_RT_PROFILE_POWER_LIMITS changes the "
                               "power limit"
                             : "ENERGY_RT_PROFILE_CLOCKS changes SM clocks") +
          ": set ENERGY_RT_ALLOW_CLOCK_CHANGES=1 to allow it (restored at "
          "exit and on fatal signals)";
    return false;
  }
  std::vector<int> supported = state.dev->supportedSmClocks();
  std::sort(supported.rbegin(), supported.rend());
  std::string list = clocks ? clockList : "";
  Profile pf;
  pf.supported = supported;
  PowerLimits lim;
  // A count after "adaptive:" or "every:": digits only, within a long
  // (-1: not one), so that "every:4x" is refused, not read as 4.
  auto countAfter = [&](size_t at) -> long {
    const char *v = list.c_str() + at;
    char *end = nullptr;
    errno = 0;
    long k = std::strtol(v, &end, 10);
    if (end == v || *end || errno ||
        !std::isdigit(static_cast<unsigned char>(*v)))
      return -1;
    return k;
  };
  if (caps) {
    std::string capText = capList;
    if (!state.dev->powerLimits(lim, why)) {
      why = "the power limit of " + state.dev->identity() +
            " cannot be read: " + why;
      return false;
    }
    // Watts, each within the device's range, none twice (two entries
    // under one limit, which the DB's readers refuse).
    for (const std::string &item : splitCommas(capText)) {
      char *end = nullptr;
      errno = 0;
      double w = std::strtod(item.c_str(), &end);
      if (item.empty() || *end || errno || !std::isfinite(w) || w < lim.minW ||
          w > lim.maxW) {
        char range[96];
        std::snprintf(range, sizeof range, "[%g, %g] W", lim.minW, lim.maxW);
        why = "'" + item + "' is not a power limit of " +
              state.dev->identity() + " in watts (its range is " + range + ")";
        return false;
      }
      if (std::count(pf.caps.begin(), pf.caps.end(), w)) {
        why = "'" + capText + "' lists " + item +
              " W twice (each limit is profiled once)";
        return false;
      }
      pf.caps.push_back(w);
    }
  }
  bool adaptive = list == "adaptive" || list.rfind("adaptive:", 0) == 0;
  if (caps && adaptive) {
    why = "'" + list +
          "': an adaptive sweep is of clocks alone; across power limits "
          "and clocks every pair of the lists runs (give the clocks)";
    return false;
  }
  if (!clocks) {
    // A sweep of limits alone, at the default clock.
  } else if (adaptive) {
    long b = list == "adaptive" ? 8 : countAfter(9);
    if (b < 2 || b > long(supported.size())) {
      why = "'" + list + "': adaptive:B needs a whole number 2 <= B <= " +
            std::to_string(supported.size()) + " clocks";
      return false;
    }
    pf.adaptive = true;
    pf.budget = size_t(b);
    if (!jobOfRanks(pf, "adaptive profiling", "chooses each clock", why))
      return false;
    pf.clocks.push_back(supported.front());
  } else if (list == "all" || list.rfind("every:", 0) == 0) {
    long k = list == "all" ? 1 : countAfter(6);
    if (k < 1) {
      why = "'" + list + "': every:K needs a whole number K >= 1";
      return false;
    }
    for (size_t i = 0; i < supported.size(); i += size_t(k))
      pf.clocks.push_back(supported[i]);
  } else {
    for (const std::string &item : splitCommas(list)) {
      char *end = nullptr;
      long mhz = std::strtol(item.c_str(), &end, 10);
      if (item.empty() || *end ||
          !std::count(supported.begin(), supported.end(), int(mhz))) {
        why = "'" + item + "' is not a supported SM clock of " +
              state.dev->identity() + " (it supports " +
              describeClocks(supported) + ")";
        return false;
      }
      if (std::count(pf.clocks.begin(), pf.clocks.end(), int(mhz))) {
        why = "'" + list + "' lists " + item +
              " MHz twice (each clock is profiled once)";
        return false;
      }
      pf.clocks.push_back(int(mhz));
    }
  }
  auto count = [&](const char *var, unsigned fallback, unsigned &out) {
    const char *v = std::getenv(var);
    if (!v)
      return (out = fallback), true;
    char *end = nullptr;
    long n = std::strtol(v, &end, 10);
    if (end == v || *end || n < 0 || n > 1000000) {
      why = std::string(var) + "='" + v + "' is not a count from 0 to 1000000";
      return false;
    }
    out = unsigned(n);
    return true;
  };
  if (!count("ENERGY_RT_PROFILE_WARMUP", 2, pf.warmup) ||
      !count("ENERGY_RT_PROFILE_ITERATIONS", 3, pf.perClock))
    return false;
  if (pf.perClock == 0) {
    why = "ENERGY_RT_PROFILE_ITERATIONS must be at least 1";
    return false;
  }
  // A clock is set at once; a limit settles over hundreds of ms.
  if (!caps && std::getenv("ENERGY_RT_PROFILE_SETTLE")) {
    why = "ENERGY_RT_PROFILE_SETTLE is for a sweep of power limits (a "
          "clock holds from when it is set): unset it";
    return false;
  }
  if (caps && !count("ENERGY_RT_PROFILE_SETTLE", 1, pf.settle))
    return false;
  // Across limits and clocks, each limit's clocks from the highest down:
  // after the first, a clock change under the limit only lowers the power,
  // which takes effect at once (phasePosition settles the first alone).
  if (caps && clocks)
    std::sort(pf.clocks.begin(), pf.clocks.end(), std::greater<int>());
  if (const char *c = std::getenv("ENERGY_RT_POWER_LIMIT_CHOICE");
      c && caps && clocks) {
    why = "ENERGY_RT_POWER_LIMIT_CHOICE chooses a limit by the job's "
          "iterations at the default clock; a profile across limits and "
          "clocks is for choosing both from the DB (energy-opt "
          "--energy-plan=\"choose-power-cap=true ...\"): unset one";
    return false;
  } else if (c && caps) {
    calculus::CapObjective obj;
    if (!parseCapObjective(c, obj, why)) {
      why = "ENERGY_RT_POWER_LIMIT_CHOICE='" + std::string(c) + "': " + why;
      return false;
    }
    pf.choice = obj;
    pf.windows.assign(pf.caps.size(), Profile::Window());
    if (!jobOfRanks(pf, "choosing a power limit", "chooses its limit", why))
      return false;
  }
  if (heldByAnotherProcess(*state.dev, why))
    return false;
  pf.active = true;
  state.guard = std::make_unique<ClockGuard>(*state.dev);
  state.profile = pf;
  // Whether the limit may be set at all, now: the one in force, then back
  // to the default (refused without permission, as for a non-root user).
  if (caps) {
    std::string err;
    if (!state.dev->setPowerLimit(lim.currentW, err) ||
        !state.dev->resetPowerLimit(err)) {
      why =
          "cannot set the power limit of " + state.dev->identity() + ": " + err;
      return false;
    }
    state.guard->atDefaults();
  }
  // Whether clocks may be set at all, now: a GPU that refuses (no
  // permission, as for a non-root user) would otherwise fail the job at the
  // first clock change, after its warm-up iterations. The highest clock,
  // then back to the default.
  if (clocks && pf.warmup != 0) {
    std::string err;
    if (!state.dev->setSmClock(supported.front(), err) ||
        !state.dev->resetSmClock(err)) {
      why = "cannot set the SM clocks of " + state.dev->identity() + ": " + err;
      return false;
    }
    state.guard->atDefaults();
  }
  // Under energy-prof profile: this rank says it started, with the job's
  // size, so that a rank killed before it wrote its shard is named there,
  // not lost without a word.
  if (const char *dir = std::getenv("ENERGY_RT_PROFILE_SYNC_DIR");
      dir && *dir) {
    const char *world = nullptr;
    // The ranks this node's energy-prof runs (a multi-node job runs one
    // per node): the local size where the launcher gives it.
    for (const char *var : {"LOCAL_WORLD_SIZE", "SLURM_NTASKS_PER_NODE",
                            "OMPI_COMM_WORLD_LOCAL_SIZE", "WORLD_SIZE",
                            "SLURM_NTASKS", "OMPI_COMM_WORLD_SIZE"})
      if ((world = std::getenv(var)))
        break;
    std::string err;
    AtomicFile::writeWhole(std::string(dir) + "/started.rank" +
                               std::to_string(er_rank()),
                           std::string(world ? world : "1") + "\n", err);
  }
  if (pf.warmup == 0 && caps) {
    std::string err;
    if (!state.dev->setPowerLimit(pf.caps[0], err) ||
        (clocks && !state.dev->setSmClock(pf.clocks[0], err))) {
      why = err;
      return false;
    }
    if (clocks && state.sampler)
      state.sampler->noteSmClock(pf.clocks[0]);
    state.profileCapW = pf.caps[0];
    state.profile.settling = pf.settle > 0;
    // No warm-up and no settling: the first limit's recorded iterations
    // start now.
    if (state.profile.choice && pf.settle == 0) {
      Profile::Window &w = state.profile.windows[0];
      deviceReading(w.t0, w.e0);
      w.changesAtOpen = state.clockChanges;
    }
  } else if (pf.warmup == 0) {
    std::string err;
    if (!state.dev->setSmClock(pf.clocks[0], err)) {
      why = err;
      return false;
    }
    if (state.sampler)
      state.sampler->noteSmClock(pf.clocks[0]);
  }
  return true;
}

/// A Prometheus label value (text exposition format: backslash, quote and
/// newline escaped).
std::string promLabel(const std::string &v) {
  std::string out;
  for (char c : v) {
    if (c == '\\' || c == '"')
      out += '\\', out += c;
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

/// Every region's totals in the Prometheus text exposition format (the
/// node_exporter textfile-collector convention), written whole or not at
/// all (caller holds state.mu; pending runs resolved without waiting).
/// The metrics as text (caller holds state.mu); empty with `err` on failure.
std::string metricsText(std::string &err) {
  if (!resolvePending(/*wait=*/false, err))
    return "";
  std::string rank = std::to_string(er_rank());
  std::string device = promLabel(state.dev->identity());
  std::ostringstream os;
  os.precision(17);
  struct Metric {
    const char *name, *help;
    double (*value)(const Stats &);
  } metrics[] = {
      {"energy_rt_region_energy_joules_total",
       "Energy of the region's recorded runs (J).",
       [](const Stats &s) { return s.sumE; }},
      {"energy_rt_region_seconds_total",
       "Time of the region's recorded runs (s).",
       [](const Stats &s) { return s.sumT; }},
      {"energy_rt_region_runs_total", "Recorded runs of the region.",
       [](const Stats &s) { return double(s.count); }},
  };
  std::map<std::string, Region> byName = pooledRegions();
  for (const Metric &m : metrics) {
    os << "# HELP " << m.name << " " << m.help << "\n# TYPE " << m.name
       << " counter\n";
    for (auto &[name, r] : byName)
      os << m.name << "{region=\"" << promLabel(name) << "\",rank=\"" << rank
         << "\",device=\"" << device << "\"} " << m.value(r.all) << "\n";
  }
  os << "# HELP energy_rt_static_power_watts Static power measured at "
        "start-up (W).\n# TYPE energy_rt_static_power_watts gauge\n"
     << "energy_rt_static_power_watts{rank=\"" << rank << "\",device=\""
     << device << "\"} " << state.staticPower << "\n";
  return os.str();
}

/// Writes the metrics whole or not at all (caller holds state.mu).
int writeMetrics(const std::string &path) {
  std::string err, text = metricsText(err);
  if (!err.empty())
    return fail(err);
  if (!AtomicFile::writeWhole(path, text, err))
    return fail(err);
  return 0;
}

/// ENERGY_RT_METRICS_PORT (0: any free port, er_metrics_port() tells) on
/// ENERGY_RT_METRICS_ADDRESS (default 127.0.0.1). The scrape takes the
/// state's lock only when it is free, so that er_shutdown (which holds it
/// while it stops the server) cannot wait on a scrape that waits on it.
/// `worker`: a forked or spawned worker of a measuring process (a
/// DataLoader's): its parent serves; it does not. "N+LOCAL_RANK" gives each
/// rank of a node its own port (N plus the node-local rank: LOCAL_RANK,
/// SLURM_LOCALID or OMPI_COMM_WORLD_LOCAL_RANK, the first that is set and a
/// number). A port another process holds, or one past 65535 after the
/// rank's offset, is a warning: metrics are opt-in, and the job runs on
/// without them; a port or address that is not one is an error.
bool startMetricsServer(bool worker, std::string &err) {
  const char *port = std::getenv("ENERGY_RT_METRICS_PORT");
  if (!port || worker)
    return true;
  std::string text = port;
  auto bad = [&] {
    err = "ENERGY_RT_METRICS_PORT='" + std::string(port) +
          "' is not a port number (0-65535) or N+LOCAL_RANK";
    return false;
  };
  long offset = 0;
  bool perRank = false;
  if (size_t plus = text.find('+'); plus != std::string::npos) {
    if (text.substr(plus + 1) != "LOCAL_RANK")
      return bad();
    perRank = true;
    text.resize(plus);
    for (const char *var :
         {"LOCAL_RANK", "SLURM_LOCALID", "OMPI_COMM_WORLD_LOCAL_RANK"})
      if (const char *v = std::getenv(var)) {
        char *e = nullptr;
        long r = std::strtol(v, &e, 10);
        if (e != v && !*e && r >= 0 && r <= 65535) {
          offset = r;
          break;
        }
      }
  }
  char *end = nullptr;
  long p = std::strtol(text.c_str(), &end, 10);
  if (end == text.c_str() || *end || !std::isdigit((unsigned char)text[0]) ||
      p < 0 || p > 65535 || (perRank && p == 0))
    return bad();
  const char *addr = std::getenv("ENERGY_RT_METRICS_ADDRESS");
  std::string address = addr && *addr ? addr : "127.0.0.1";
  if (p + offset > 65535) {
    std::fprintf(stderr,
                 "energy_rt: warning: metrics not served: port %ld + local "
                 "rank %ld is past 65535 (ENERGY_RT_METRICS_PORT='%s')\n",
                 p, offset, port);
    return true;
  }
  std::string bindErr;
  if (!state.metricsServer.start(
          address, int(p + offset),
          [] {
            std::unique_lock<std::mutex> lock(state.mu, std::try_to_lock);
            for (int i = 0; !lock.owns_lock() && i < 2000; ++i) {
              std::this_thread::sleep_for(std::chrono::milliseconds(1));
              lock.try_lock();
            }
            if (!lock.owns_lock() || !state.dev)
              return std::string("# energy_rt: busy or shut down\n");
            std::string why, text = metricsText(why);
            return why.empty() ? text : "# energy_rt: " + why + "\n";
          },
          bindErr)) {
    if (!state.metricsServer.portInUse()) {
      err = bindErr;
      return false;
    }
    std::fprintf(stderr,
                 "energy_rt: warning: metrics not served: %s (several ranks "
                 "on one node: ENERGY_RT_METRICS_PORT=%ld+LOCAL_RANK; any "
                 "free port: 0)\n",
                 bindErr.c_str(), p);
    return true;
  }
  std::fprintf(stderr, "energy_rt: metrics on http://%s:%d/metrics\n",
               address.c_str(), state.metricsServer.port());
  return true;
}

/// The metrics textfile's write at exit or er_shutdown
/// (ENERGY_RT_METRICS_FILE; caller holds state.mu): not a worker's, whose
/// regions are not the rank's.
void writeMetricsFileNow(const char *when) {
  const char *path = std::getenv("ENERGY_RT_METRICS_FILE");
  if (!state.dev || state.forked || state.worker || !path || !*path)
    return;
  if (writeMetrics(path) != 0)
    std::fprintf(stderr, "energy_rt: ENERGY_RT_METRICS_FILE %s: %s\n", when,
                 er_last_error());
}

/// This thread's open region `name`, or null with the error set (call with
/// state.mu held).
Region *openRegion(const char *name, unsigned owner) {
  auto it = state.regions.find({name, threadSerial(), owner});
  if (it == state.regions.end() || !it->second.open) {
    fail(std::string("region '") + name + "' is not open");
    return nullptr;
  }
  return &it->second;
}

/// Writes the signature DB of every run resolved so far to `path` ("%r":
/// the rank), whole or not at all (caller holds state.mu).
bool writeShard(const std::string &path, std::string &err) {
  std::string p = withRank(path);
  // One entry per region and SM clock: a region profiled across clocks
  // becomes an operating set for --energy-fill-signatures.
  std::vector<Measurement> entries;
  for (auto &[name, r] : pooledRegions()) {
    for (auto it = r.byClock.rbegin(); it != r.byClock.rend(); ++it) {
      const Stats &st = it->second;
      if (!st.count)
        continue;
      double n = st.count;
      double meanT = st.sumT / n, meanE = st.sumE / n;
      Measurement m;
      m.key = name;
      m.smMhz = it->first.first;
      // Runs under a loaded plan's power cap: another entry, whose context
      // says so (--energy-fill-signatures makes the cap part of its
      // operating point; merge keeps it apart from uncapped runs).
      if (double cap = it->first.second; cap > 0) {
        m.powerLimit = cap;
        PowerLimits lim;
        std::string why;
        if (state.dev->powerLimits(lim, why))
          m.defaultPowerLimit = lim.defaultW;
      }
      m.s = state.staticPower;
      m.T = meanT;
      m.d = std::max(0.0, meanE - state.staticPower * meanT);
      // A region whose runs drew less than the static power measured at
      // er_init (an idle wait on a GPU that idles lower since): its
      // dynamic energy is kept at 0, said once per region and clock.
      if (meanE < state.staticPower * meanT * (1 - 1e-9) &&
          state.warnedBelowStatic
              .insert({name, it->first.first, it->first.second})
              .second)
        std::fprintf(stderr,
                     "energy_rt: warning: region '%s' at %d MHz drew %.6g J "
                     "per run, below the static power measured at er_init x "
                     "its time (%.6g W x %.6g s = %.6g J): its dynamic "
                     "energy is kept at 0, %.3g J above the runs\n",
                     name.c_str(), it->first.first, meanE, state.staticPower,
                     meanT, state.staticPower * meanT,
                     state.staticPower * meanT - meanE);
      m.varT =
          n > 1 ? std::max(0.0, (st.sumT2 - n * meanT * meanT) / (n - 1)) : 0;
      double varE =
          n > 1 ? std::max(0.0, (st.sumE2 - n * meanE * meanE) / (n - 1)) : 0;
      double covET = n > 1 ? (st.sumET - n * meanE * meanT) / (n - 1) : 0;
      // Var(d) = Var(E - s T) = var_E - 2 s Cov(E, T) + s^2 var_T: a run's
      // energy and time move together (its static part), so leaving the
      // covariance out understates it or clips it to 0.
      m.varD = std::max(0.0, varE - 2 * m.s * covET + m.s * m.s * m.varT);
      m.runs = st.count;
      entries.push_back(m);
    }
    // A simulated device in virtual time advances only by the work charged
    // to it (er_sim_run; energy_rt.torch.Stage charges its modules'), so a
    // region that charged none -- an optimizer step, a collective, CPU work
    // -- is recorded as free and a plan would treat it so.
    if (state.sim && !state.sim->realTime() && r.all.count && r.all.sumT <= 0 &&
        state.warnedFree.insert(name).second)
      std::fprintf(stderr,
                   "energy_rt: warning: region '%s' ran %u time(s) and took "
                   "no time on %s: in virtual time only "
                   "work charged with er_sim_run (energy_rt.sim_run; "
                   "energy_rt.torch.Stage charges its modules') takes time, "
                   "so its entry says it is free; charge its FLOPs and "
                   "bytes, or run with ENERGY_RT_SIM_REALTIME=1\n",
                   name.c_str(), r.all.count, state.dev->identity().c_str());
  }
  // Whole or not at all: a failed write leaves the previous DB intact.
  std::string json = signatureDbJson(
      state.dev->identity(), entries, state.sim ? "simulated" : "measured",
      energy::generatorJson(
          "energy_rt er_flush (rank " + std::to_string(er_rank()) + ")", {},
          {processIdentity() + " session " + std::to_string(state.session)}));
  return AtomicFile::writeWhole(p, json, err);
}

/// A shard path without %r in a job of several ranks: every rank that
/// measures writes the one file, the last overwriting the others'.
void warnSharedPath(const std::string &p, const char *what) {
  for (const char *var : {"WORLD_SIZE", "SLURM_NTASKS", "OMPI_COMM_WORLD_SIZE"})
    if (const char *n = std::getenv(var)) {
      if (std::atol(n) > 1 && p.find("%r") == std::string::npos)
        std::fprintf(stderr,
                     "energy_rt: warning: %s path '%s' has no %%r, and "
                     "%s=%s: every rank that measures writes this one file, "
                     "the last overwriting the others (put %%r, the rank, in "
                     "the path)\n",
                     what, p.c_str(), var, n);
      return;
    }
}

/// ENERGY_RT_FLUSH_AT_EXIT's shard, also written during the job so that a
/// death no exit path sees (SIGKILL, SIGSEGV, SIGABRT, os._exit, the OOM
/// killer) loses at most the runs since: at er_step when a profiled clock
/// has just finished, and otherwise at most every ENERGY_RT_FLUSH_INTERVAL
/// seconds (default 60; 0: every step). Between clocks, runs the counter
/// has not passed yet are left for the next write. A failed write is a warning:
/// the job goes on, and the exit's flush tries again. Caller holds state.mu.
void checkpointShard(bool clockFinished) {
  if (state.flushAtExit.empty())
    return;
  auto now = std::chrono::steady_clock::now();
  if (!clockFinished &&
      std::chrono::duration<double>(now - state.lastCheckpoint).count() <
          state.flushInterval)
    return;
  state.lastCheckpoint = now;
  std::string err;
  // A finished clock's last runs are waited for (on a GPU up to one ~100 ms
  // counter update, once per clock): the shard then holds the whole clock.
  if (resolvePending(/*wait=*/clockFinished, err) &&
      writeShard(state.flushAtExit, err))
    return;
  std::fprintf(stderr,
               "energy_rt: warning: ENERGY_RT_FLUSH_AT_EXIT: writing the "
               "shard during the job failed (the exit will try again): %s\n",
               err.c_str());
}

/// What the job should know as it ends (er_exit_warnings), once per
/// process. Caller holds state.mu.
void exitWarnings() {
  static bool said = false;
  // Shut down, or a forked child that never measured: nothing of its own.
  if (said || !state.dev || state.forked)
    return;
  said = true;
  const Profile &pf = state.profile;
  bool swept = pf.active || pf.done || pf.interrupted;
  if ((pf.active || pf.interrupted) && !pf.done) {
    // The other ranks of an adaptive sweep stop waiting for its energy.
    if (const char *dir = std::getenv("ENERGY_RT_PROFILE_SYNC_DIR");
        dir && *dir) {
      std::string err;
      AtomicFile::writeWhole(std::string(dir) + "/ended" + jobSuffix() +
                                 ".rank" + std::to_string(er_rank()),
                             std::to_string(pf.step) + "\n", err);
    }
    if (pf.step == 0)
      std::fprintf(stderr,
                   "energy_rt: warning: rank %d ended before its first "
                   "iteration was marked: the sweep never started and "
                   "nothing was recorded (call er_step / energy_rt.step() at "
                   "the end of every iteration)\n",
                   er_rank());
    else if (!pf.caps.empty())
      std::fprintf(stderr,
                   "energy_rt: warning: rank %d ended during the power-limit "
                   "sweep, after %u iterations (%u warm-up, then %u settling "
                   "%s %u recorded per %s)%s\n",
                   er_rank(), pf.step, pf.warmup, pf.settle,
                   pf.clocks.empty() ? "and" : "per limit and", pf.perClock,
                   pf.clocks.empty() ? "limit" : "limit and clock",
                   state.flushAtExit.empty() ? ""
                   : pf.clocks.empty()
                       ? ": its shard holds the limits it ran, the last "
                         "one with the runs it finished"
                       : ": its shard holds the pairs of limit and clock "
                         "it ran, the last one with the runs it "
                         "finished");
    else
      std::fprintf(stderr,
                   "energy_rt: warning: rank %d ended during the clock sweep, "
                   "after %u iterations (%u warm-up, then %u per clock)%s\n",
                   er_rank(), pf.step, pf.warmup, pf.perClock,
                   state.flushAtExit.empty()
                       ? ""
                       : ": its shard holds the clocks it ran, the last one "
                         "with the runs it finished");
  }
  if (swept && !pf.choice && state.flushAtExit.empty() &&
      state.runsAccounted > state.runsAtFlush)
    std::fprintf(stderr,
                 "energy_rt: warning: rank %d's sweep measured %llu "
                 "region runs that were not written (no "
                 "ENERGY_RT_FLUSH_AT_EXIT, and no flush since): set it to a "
                 "shard path, or run the job under `energy-prof profile`, "
                 "which does\n",
                 er_rank(),
                 (unsigned long long)(state.runsAccounted - state.runsAtFlush));
  // Written already with nothing since: nothing left open matters.
  if (state.flushAtExit.empty() || state.runsAtExitFlush == state.runsAccounted)
    return;
  for (const auto &[key, r] : state.regions)
    if (r.open)
      std::fprintf(stderr,
                   "energy_rt: warning: region '%s' was still open at exit: "
                   "its last run is not recorded\n",
                   key.name.c_str());
}

} // namespace

extern "C" {

int er_exit_warnings(void) {
  std::lock_guard<std::mutex> lock(state.mu);
  exitWarnings();
  return 0;
}

int er_restore(void) {
  std::lock_guard<std::mutex> lock(state.mu);
  if (!state.dev || state.forked || !state.guard)
    return 0;
  // What changes clocks from here on: the sweep's steps and the planned
  // regions. Both end (the plan stays, for what the exit says about it);
  // the guard's destructor restores and drops its record.
  if (state.profile.active)
    state.profile.interrupted = true;
  state.profile.active = false;
  state.clocksReleased = true;
  state.guard.reset();
  // The limit is the default's again: later runs are not the cap's, and a
  // run open across this has no one signature.
  if (state.planPowerCapW || state.profileCapW) {
    state.planPowerCapW.reset();
    state.profileCapW.reset();
    ++state.clockChanges;
  }
  if (state.sampler)
    state.sampler->noteSmClock(state.dev->currentSmClock());
  return 0;
}

int er_rank(void) {
  for (const char *var :
       {"RANK", "LOCAL_RANK", "SLURM_PROCID", "OMPI_COMM_WORLD_RANK"})
    if (const char *v = std::getenv(var)) {
      // A non-negative decimal below 2^31, or -1: "3x" or "abc" read as 3
      // or 0 would let two ranks write one shard.
      char *end = nullptr;
      errno = 0;
      long r = std::strtol(v, &end, 10);
      if (end == v || *end != 0 || errno != 0 || r < 0 || r > INT32_MAX)
        return -1;
      return int(r);
    }
  return 0;
}

int er_init(const char *device) {
  static std::once_flag forkHandlers;
  std::call_once(forkHandlers, [] {
    pthread_atfork(beforeFork, afterForkParent, afterForkChild);
  });
  std::lock_guard<std::mutex> lock(state.mu);
  warnUnknownVariables();
  ++state.session;
  std::string name = device ? device : "";
  if (name.empty())
    if (const char *env = std::getenv("ENERGY_RT_DEVICE")) {
      if (!*env)
        return fail("ENERGY_RT_DEVICE is set but empty: name a device "
                    "(cuda:<i>, sim:a100, ...) or unset it");
      name = env;
    }
  if (name.empty())
    return fail("no device: pass one or set ENERGY_RT_DEVICE");
  // Profiling a device the program names itself, not the one energy-prof
  // profile was given (and checked the clocks of): said.
  const char *envDevice = std::getenv("ENERGY_RT_DEVICE");
  auto lower = [](std::string t) {
    for (char &c : t)
      c = char(std::tolower((unsigned char)c));
    return t;
  };
  if (device && *device && envDevice && *envDevice && profileVariable() &&
      lower(device) != lower(envDevice))
    std::fprintf(stderr,
                 "energy_rt: warning: profiling %s, which the program names, "
                 "not ENERGY_RT_DEVICE=%s (energy-prof profile's --device, "
                 "whose clocks it checked)\n",
                 device, envDevice);
  if (er_rank() < 0) {
    std::string which;
    for (const char *var :
         {"RANK", "LOCAL_RANK", "SLURM_PROCID", "OMPI_COMM_WORLD_RANK"})
      if (const char *v = std::getenv(var)) {
        which = std::string(var) + "='" + v + "'";
        break;
      }
    return fail("the rank " + which +
                " is not a non-negative integer below 2^31 (it names the "
                "process's shard, %r)");
  }
  std::string err;
  // The simulated device's noise: seeded by the rank, reproducibly, or by
  // ENERGY_RT_SIM_SEED (the Python package derives a worker's from it and
  // the DataLoader worker id); without it a child forked after er_init
  // mixes in its pid. Workers of one rank would otherwise draw the same
  // noise and write the same shard.
  uint64_t seed = 1 + uint64_t(er_rank());
  if (const char *v = std::getenv("ENERGY_RT_SIM_SEED")) {
    char *end = nullptr;
    errno = 0;
    unsigned long long x = std::strtoull(v, &end, 10);
    if (end == v || *end != 0 || errno != 0 ||
        !std::isdigit(static_cast<unsigned char>(*v)))
      return fail(std::string("ENERGY_RT_SIM_SEED='") + v +
                  "' is not a non-negative integer below 2^64");
    seed = x;
  } else if (state.forked)
    seed ^= 0x9e3779b97f4a7c15ull * (uint64_t(getpid()) + 1);
  // A second er_init would drop what this process measured and has not
  // written (a forked child's copy of its parent's regions is not its own).
  if (state.dev && !state.forked) {
    size_t open = 0;
    for (const auto &[key, r] : state.regions)
      open += r.open;
    uint64_t runs = state.runsAccounted - state.runsAtFlush +
                    uint64_t(state.pending.size());
    if (runs || open)
      return fail("er_init: " + state.dev->identity() +
                  " already measures this "
                  "process and holds " +
                  std::to_string(runs) + " run(s) not yet flushed and " +
                  std::to_string(open) +
                  " open region(s); er_flush them first (er_shutdown "
                  "discards them)");
  }
  state.metricsServer.stop();
  state.sampler.reset(); // stops its thread before the device goes
  state.pending.clear();
  state.tickets.clear();
  state.pendingTickets.clear();
  state.resolvedUpTo = -1e300;
  // A worker of a measuring process: forked from it, or spawned as its
  // multiprocessing worker (the Python package sets ENERGY_RT_WORKER=1 for
  // this call only). A job the process launches is not one.
  bool worker = state.forked;
  if (const char *w = std::getenv("ENERGY_RT_WORKER"))
    worker = worker || std::string(w) == "1";
  state.worker = worker;
  state.warnedBelowStatic.clear();
  state.forked = false;
  state.guard.reset(); // a re-init restores the previous device first
  // Devices a process now gone left changed (SIGKILL, power loss): their
  // defaults come back before anything else (RestoreRecord.h).
  {
    // (Unreadable records and folders are `energy-prof restore`'s to
    // report: a process that never changes clocks has no use for them, and
    // one that does is told when its own record cannot be written.)
    std::string unreadable;
    for (const RestoreOutcome &o : restoreStale(unreadable))
      if (o.kind != RestoreOutcome::Held &&
          o.kind != RestoreOutcome::Unverifiable)
        std::fprintf(stderr, "energy_rt: %s\n", describe(o).c_str());
  }
  // The prefix in any case, as the kind after it ("SIM:A100").
  if (name.size() >= 4 && strncasecmp(name.c_str(), "sim:", 4) == 0)
    name.replace(0, 4, "sim:");
  // "cuda": this process's GPU. A process shown one GPU (Slurm's
  // --gpus-per-task, a launcher that sets CUDA_VISIBLE_DEVICES per rank)
  // has it as cuda:0 whatever its LOCAL_RANK; otherwise torchrun's one per
  // process (LOCAL_RANK), else the first.
  if (strcasecmp(name.c_str(), "cuda") == 0) {
    long i = 0;
    const char *visible = std::getenv("CUDA_VISIBLE_DEVICES");
    bool one = visible && *visible && !std::strchr(visible, ',');
    if (const char *local = std::getenv("LOCAL_RANK"); local && !one) {
      char *end = nullptr;
      long l = std::strtol(local, &end, 10);
      if (end != local && *end == 0 && l >= 0 && l <= 4095)
        i = l;
    }
    name = "cuda:" + std::to_string(i);
  }
  if (name.rfind("sim:", 0) == 0) {
    SimGpu p;
    if (!simGpuForDevice(name, p, err))
      return fail(err);
    auto sim = std::make_unique<SimDevice>(p, seed);
    // Tests watch the simulated clock from outside, as a GPU's outlives us
    // ("%r": the rank, one file per rank of a job).
    if (const char *mirror = std::getenv("ENERGY_RT_SIM_STATE")) {
      sim->clockStateFile = withRank(mirror);
      sim->powerLimitStateFile = withRank(mirror) + ".power";
    }
    state.sim = sim.get();
    state.dev = std::move(sim);
  } else if (name.rfind("cuda:", 0) == 0) {
    const char *index = name.c_str() + 5;
    char *end = nullptr;
    errno = 0;
    long i = std::strtol(index, &end, 10);
    if (end == index || *end != 0 || errno != 0 || i < 0 || i > 4095 ||
        !std::isdigit(static_cast<unsigned char>(*index)))
      return fail("device '" + name +
                  "': expected cuda:<index>, a GPU index from 0");
    unsigned nvml = 0; // CUDA's index, as the job's framework numbers it
    if (!nvmlIndexOfCuda(unsigned(i), nvml, err))
      return fail(err);
    state.dev = openNvmlDevice(nvml, err);
    state.sim = nullptr;
    if (!state.dev)
      return fail(err);
  } else {
    bool fromEnv = !(device && *device);
    return fail("unknown device '" + name + "'" +
                (fromEnv ? " (ENERGY_RT_DEVICE)" : "") +
                ": expected cuda:<index>, cuda (this process's GPU: "
                "cuda:LOCAL_RANK) or a simulated one (sim:a100, sim:a40, "
                "sim:h100, sim:h200, sim:b200)");
  }
  // Real time is checked before the static-power measurement (a second of
  // idling) and switched on after it.
  std::optional<double> realTime;
  // "0" or empty: virtual time, as unset (a switch turned off).
  if (const char *rt = std::getenv("ENERGY_RT_SIM_REALTIME");
      rt && *rt && std::strcmp(rt, "0") != 0) {
    char *end = nullptr;
    double k = std::strtod(rt, &end);
    if (!state.sim)
      return fail("ENERGY_RT_SIM_REALTIME applies to simulated devices only, "
                  "not " +
                  name);
    if (end == rt || *end || !(k >= 1e-3 && k <= 1e3))
      return fail(std::string("ENERGY_RT_SIM_REALTIME='") + rt +
                  "': expected wall seconds per simulated second in "
                  "[0.001, 1000] (1: the simulated device runs on the wall "
                  "clock; 0 or unset: virtual time)");
    realTime = k;
  }
  ProtocolOptions opts;
  if (!measureStaticPower(*state.dev, opts, state.staticPower, err))
    return fail(err);
  if (realTime)
    state.sim->setRealTime(*realTime);
  if (!state.sim) {
    // Polled every 10 ms: a change is placed within 5 ms of when it
    // happened, against the counter's 100 ms period.
    state.sampler = std::make_unique<EnergySampler>(*state.dev, 0.01);
    // Another process changing this device's settings (it holds the
    // device's claim, RestoreRecord.h) is seen at every poll: a run across
    // it has no one clock.
    std::shared_ptr<int> lockFd(new int(-1), [](int *fd) {
      if (*fd >= 0)
        ::close(*fd);
      delete fd;
    });
    state.lockPollFd = lockFd;
    Device *dev = state.dev.get();
    state.sampler->heldElsewhere = [dev, lockFd] {
      return claimedElsewhere(*dev, *lockFd);
    };
    state.sampler->noteSmClock(state.dev->currentSmClock());
    state.sampler->pollOnce(); // the curve starts before any region
    state.sampler->start();
  }
  state.regions.clear();
  state.runsAtFlush = state.runsAccounted;
  state.planClocks.clear();
  state.planPowerCapW.reset();
  state.profileCapW.reset();
  state.planKept.clear();
  state.planComplete = false;
  state.planBegins = 0;
  state.planRegionRan = false;
  state.occurrences.clear();
  state.planKeysRan.clear();
  state.unplannedBegins.clear();
  state.steps = 0;
  state.saidPlannedThreads = false;
  state.clocksReleased = false;
  state.openPlanned = 0;
  state.simRuns = 0;
  state.saidNoSimWork = false;
  state.saidForeignHolder = false;
  state.switches = 0;
  state.profile = Profile();
  {
    const char *clockList = std::getenv("ENERGY_RT_PROFILE_CLOCKS");
    const char *capList = std::getenv("ENERGY_RT_PROFILE_POWER_LIMITS");
    if (std::getenv("ENERGY_RT_POWER_LIMIT_CHOICE") && !capList)
      return fail("ENERGY_RT_POWER_LIMIT_CHOICE chooses among the limits of "
                  "ENERGY_RT_PROFILE_POWER_LIMITS: set those, or unset it");
    std::string why;
    if ((capList || clockList) && !startProfile(capList, clockList, why))
      return fail(std::string(capList && clockList
                                  ? "profiling across power limits and clocks"
                              : capList ? "profiling across power limits"
                                        : "profiling across clocks") +
                  ": " + why);
  }
  state.flushAtExit.clear();
  state.flushInterval = 60;
  static std::string atExitPath;
  static std::once_flag registered;
  if (const char *at = std::getenv("ENERGY_RT_FLUSH_AT_EXIT")) {
    // Set but empty is a script's mistake (an unset variable expanded):
    // found out at exit, the whole job's measurements would be lost.
    if (!*at)
      return fail("ENERGY_RT_FLUSH_AT_EXIT is set but empty: give the "
                  "shard's path (%r for the rank), or unset it");
    if (const char *iv = std::getenv("ENERGY_RT_FLUSH_INTERVAL")) {
      char *end = nullptr;
      double interval = std::strtod(iv, &end);
      if (end == iv || *end || !(interval >= 0) || !std::isfinite(interval))
        return fail(std::string("ENERGY_RT_FLUSH_INTERVAL='") + iv +
                    "' is not a non-negative number of seconds");
      state.flushInterval = interval;
    }
    state.lastCheckpoint = std::chrono::steady_clock::now();
    // The path is checked now, not after the job: a shard that cannot be
    // written must not be found out at exit, and in a job of several ranks
    // a path without %r would have each rank overwrite the others'.
    {
      std::string p = at;
      warnSharedPath(p, "ENERGY_RT_FLUSH_AT_EXIT");
      if (!AtomicFile::checkWritable(withRank(p), err))
        return fail("ENERGY_RT_FLUSH_AT_EXIT: " + err);
    }
    atExitPath = at;
    state.flushAtExit = at;
  }
  // At exit: the warnings (exitWarnings) and, with ENERGY_RT_FLUSH_AT_EXIT,
  // the shard; a profiled job without it gets the warnings alone.
  if (state.profile.active || state.profile.done || !state.flushAtExit.empty())
    std::call_once(registered, [] {
      std::atexit([] {
        {
          std::lock_guard<std::mutex> lock(state.mu);
          exitWarnings();
          // Shut down, a forked child that never measured, nowhere to
          // write, or written already with nothing since.
          if (!state.dev || state.forked || state.flushAtExit.empty() ||
              state.runsAtExitFlush == state.runsAccounted)
            return;
        }
        if (er_flush(atExitPath.c_str()) != 0)
          std::fprintf(stderr, "energy_rt: ENERGY_RT_FLUSH_AT_EXIT: %s\n",
                       er_last_error());
      });
    });
  if (std::string why; !startMetricsServer(worker, why))
    return fail(why);
  // The metrics textfile's last write at exit (and at er_shutdown), so
  // that it holds the whole job (er_step writes it at most every
  // ENERGY_RT_METRICS_INTERVAL).
  if (const char *m = std::getenv("ENERGY_RT_METRICS_FILE"); m && *m) {
    static std::once_flag metricsAtExit;
    std::call_once(metricsAtExit, [] {
      std::atexit([] {
        std::lock_guard<std::mutex> lock(state.mu);
        writeMetricsFileNow("at exit");
      });
    });
  }
  return 0;
}

int er_metrics_port(void) { return state.metricsServer.port(); }

int er_write_metrics(const char *path) {
  if (!path || !*path)
    return fail("er_write_metrics: needs a path");
  std::lock_guard<std::mutex> lock(state.mu);
  if (!state.dev)
    return notInitialized("er_write_metrics");
  return writeMetrics(path);
}

namespace {
/// Every rank's line `mine` of the profile's sync directory
/// (`<tag>.rank<r>`), by rank, once all have written theirs (caller holds
/// state.mu; waits up to 10 minutes for the slowest rank). `who` and
/// `what` name the wait in errors: "adaptive profiling", "energy at 1410
/// MHz"; `sweep` the sweep a rank that ended left.
bool gatherRanks(const Profile &pf, const std::string &tag,
                 const std::string &mine, const std::string &who,
                 const std::string &what, const std::string &sweep,
                 std::vector<std::string> &all, std::string &err) {
  std::string job = jobSuffix();
  auto fileOf = [&](int rank) {
    return pf.syncDir + "/" + tag + job + ".rank" + std::to_string(rank);
  };
  if (!AtomicFile::writeWhole(fileOf(er_rank()), mine, err)) {
    err = who + ": " + err;
    return false;
  }
  auto start = std::chrono::steady_clock::now();
  auto deadline = start + std::chrono::minutes(10);
  bool said = false;
  all.clear();
  for (int r = 0; r < pf.world; ++r) {
    for (;;) {
      // Written whole (AtomicFile): there is all of it.
      std::ifstream in(fileOf(r));
      std::stringstream text;
      if (in && (text << in.rdbuf()) && !text.str().empty()) {
        all.push_back(text.str());
        break;
      }
      // A rank that ended (its iterations fewer than this one's): nothing
      // will come.
      if (std::ifstream(pf.syncDir + "/ended" + job + ".rank" +
                        std::to_string(r))) {
        err = who + ": rank " + std::to_string(r) + " ended during the " +
              sweep + ", before its " + what +
              ": every rank must run the sweep's iterations (call step() "
              "alike)";
        return false;
      }
      // A signal the program handles later (Python's handlers run once
      // this call returns): stop waiting, so that it can (torchrun stops
      // the other ranks with SIGTERM when one fails).
      if (int sig = takeChainedSignal()) {
        err = who + ": interrupted by signal " + std::to_string(sig) +
              " while waiting for rank " + std::to_string(r) + "'s " + what;
        return false;
      }
      auto now = std::chrono::steady_clock::now();
      if (!said && now - start > std::chrono::seconds(10)) {
        said = true;
        std::fprintf(stderr,
                     "energy_rt: %s: rank %d is waiting for rank %d's %s (up "
                     "to 10 minutes)\n",
                     who.c_str(), er_rank(), r, what.c_str());
      }
      if (now > deadline) {
        err = who + ": rank " + std::to_string(er_rank()) +
              " waited 10 minutes for rank " + std::to_string(r) + "'s " +
              what + " (do all " + std::to_string(pf.world) +
              " ranks profile, and call step() alike?)";
        return false;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }
  return true;
}

/// The job's energy per iteration at the last profiled clock: this rank's,
/// plus, in a job of several ranks, every other rank's, read from the
/// profile's sync directory once all have written theirs (caller holds
/// state.mu; waits up to 10 minutes for the slowest rank).
bool jobEnergyAtLastClock(Profile &pf, double &perIteration, std::string &err) {
  int last = pf.clocks.back();
  double e = 0;
  for (const auto &[key, r] : state.regions) {
    auto it = r.byClock.find({last, 0.0}); // a profile refuses plans
    if (it != r.byClock.end())
      e += it->second.sumE;
  }
  perIteration = e / double(pf.perClock);
  if (pf.world <= 1)
    return true;
  char text[64];
  std::snprintf(text, sizeof text, "%.17g\n", perIteration);
  std::vector<std::string> all;
  if (!gatherRanks(pf, "clock" + std::to_string(pf.clocks.size()), text,
                   "adaptive profiling",
                   "energy at " + std::to_string(last) + " MHz", "clock sweep",
                   all, err))
    return false;
  double sum = 0;
  for (const std::string &t : all)
    sum += std::strtod(t.c_str(), nullptr);
  perIteration = sum;
  return true;
}

/// Adaptive profiling (Profile::adaptive), called when the last chosen
/// clock has had its iterations: records the iteration's energy at it (all
/// regions' runs at that clock / iterations) and appends the next clock.
/// Coarse: from the maximum down in steps of an eighth of the clock range
/// until the energy rises 1 % above the least seen (past the valley: lower
/// clocks only lose) or the range ends. Then refine: bisect the measured
/// interval whose ends differ most in energy (relative), while it differs
/// by more than 0.2 % and the budget lasts. Returns false when done.
bool chooseNextClock(Profile &pf, double perIteration) {
  int last = pf.clocks.back();
  pf.energyAt[last] = perIteration;
  if (pf.clocks.size() >= pf.budget)
    return false;
  const std::vector<int> &sup = pf.supported; // descending
  auto index = [&](int mhz) {
    return size_t(std::find(sup.begin(), sup.end(), mhz) - sup.begin());
  };
  double least = INFINITY;
  for (const auto &[f, en] : pf.energyAt)
    least = std::min(least, en);
  if (!pf.coarseDone) {
    size_t stride = std::max<size_t>(1, sup.size() / 8);
    size_t next = index(last) + stride;
    if (pf.energyAt[last] > 1.01 * least || next >= sup.size())
      pf.coarseDone = true;
    else {
      pf.clocks.push_back(sup[next]);
      return true;
    }
  }
  // Refinement among the measured clocks (ascending map: low to high MHz).
  double bestGap = 0.002;
  int pick = 0;
  int prev = 0;
  for (const auto &[f, en] : pf.energyAt) {
    if (prev) {
      size_t a = index(f), b = index(prev); // a < b: f is the higher clock
      double gap = std::fabs(en - pf.energyAt[prev]) /
                   std::max(1e-12, std::min(en, pf.energyAt[prev]));
      if (b - a >= 2 && gap > bestGap) {
        bestGap = gap;
        pick = sup[(a + b) / 2];
      }
    }
    prev = f;
  }
  if (!pick)
    return false;
  pf.clocks.push_back(pick);
  return true;
}
} // namespace

namespace {
/// A handled signal reset the clocks since the runtime last looked (the
/// guard resets them before the program's handler runs, and the program
/// may go on; Device.h, signalResetCount): each reset counts as a clock
/// change -- a run across it has no one clock -- and the sampler's note of
/// the clock is read again, so that a planned region sets its clock again.
/// Caller holds state.mu.
void noticeSignalResets() {
  unsigned long long n = signalResetCount();
  if (n == state.signalResetsSeen)
    return;
  state.clockChanges += n - state.signalResetsSeen;
  state.signalResetsSeen = n;
  if (state.sampler && state.dev)
    state.sampler->noteSmClock(state.dev->currentSmClock());
  // The guard put the default limit back: a profile across limits sets its
  // phase's limit again now and records nothing more of this iteration
  // (the limit settles again; the runs before the signal stay).
  if (state.profileCapW && state.dev && state.guard) {
    std::string err;
    if (state.dev->setPowerLimit(*state.profileCapW, err)) {
      state.profile.settling = true;
      state.profile.resetSeen = true;
    } else {
      std::fprintf(stderr,
                   "energy_rt: warning: the profile's power limit of %g W "
                   "could not be set again after a handled signal (%s): the "
                   "sweep ends here\n",
                   *state.profileCapW, err.c_str());
      state.profileCapW.reset();
      state.profile.active = false;
      state.profile.interrupted = true;
    }
  }
  // A plan's power cap holds for the whole job: set again (the planned
  // clocks are, at their next region).
  if (state.planPowerCapW && state.dev && state.guard &&
      !state.clocksReleased) {
    std::string err;
    if (!state.dev->setPowerLimit(*state.planPowerCapW, err)) {
      std::fprintf(stderr,
                   "energy_rt: warning: the plan's power cap of %g W could "
                   "not be set again after a handled signal: %s\n",
                   *state.planPowerCapW, err.c_str());
      state.planPowerCapW.reset(); // later runs are uncapped
    }
  }
}

} // namespace

namespace {
/// ENERGY_RT_POWER_LIMIT_CHOICE, at the end of the sweep (caller holds
/// state.mu): each limit's iteration (its recorded window over its
/// iterations), summed over the job's ranks (energy; the slowest rank's
/// time), the limit chosen as --energy-power-cap chooses, set for the rest
/// of the job (restored at exit, like a plan's cap). False with `err`
/// where there is none.
bool chooseProfiledLimit(Profile &pf, double &limit, std::string &err) {
  std::vector<calculus::CapPoint> rows;
  std::string mine;
  for (size_t i = 0; i < pf.caps.size(); ++i) {
    Profile::Window &w = pf.windows[i];
    if (!(w.t1 > w.t0) || w.disturbed)
      continue;
    double E = w.e1 - w.e0;
    // A window the counter cannot give (a stalled counter) is left out, as
    // a disturbed one is: the other ranks still get this rank's line.
    std::string why;
    if (state.sampler &&
        (!state.sampler->waitCovered(w.t1, kCounterWait, why) ||
         !state.sampler->energy(w.t0, w.t1, E, why))) {
      std::fprintf(stderr,
                   "energy_rt: warning: rank %d's iterations at %g W are left "
                   "out of the choice: %s\n",
                   er_rank(), pf.caps[i], why.c_str());
      continue;
    }
    rows.push_back({pf.caps[i], (w.t1 - w.t0) / pf.perClock, E / pf.perClock});
    char line[96];
    std::snprintf(line, sizeof line, "%.17g %.17g %.17g\n", rows.back().cap,
                  rows.back().T, rows.back().E);
    mine += line;
  }
  if (pf.world > 1) {
    std::vector<std::string> all;
    if (!gatherRanks(pf, "limits", mine.empty() ? "none\n" : mine,
                     "choosing a power limit", "iterations at each limit",
                     "power-limit sweep", all, err))
      return false;
    // A limit every rank measured: the job's energy, its slowest time.
    std::map<double, std::pair<calculus::CapPoint, int>> job;
    for (const std::string &text : all) {
      std::istringstream in(text);
      calculus::CapPoint p;
      while (in >> p.cap >> p.T >> p.E) {
        auto &[sum, n] = job[p.cap];
        sum.cap = p.cap;
        sum.T = std::max(sum.T, p.T);
        sum.E += p.E;
        ++n;
      }
    }
    rows.clear();
    for (const auto &[cap, sumN] : job)
      if (sumN.second == pf.world)
        rows.push_back(sumN.first);
  }
  std::sort(rows.begin(), rows.end(),
            [](const calculus::CapPoint &a, const calculus::CapPoint &b) {
              return a.cap > b.cap;
            });
  size_t chosen = 0;
  if (rows.empty()) {
    err = "no limit's iterations were measured whole (a handled signal "
          "inside each, or too few iterations)";
    return false;
  }
  if (!calculus::choosePowerCap(rows, *pf.choice, chosen, err))
    return false;
  // Said once for the job, as Zeus logs its choice: every limit's row.
  if (er_rank() <= 0) {
    std::fprintf(stderr,
                 "energy_rt: the job's iteration at each power limit%s:\n",
                 pf.world > 1 ? " (energy summed over its ranks, the slowest "
                                "rank's time)"
                              : "");
    for (size_t i = 0; i < rows.size(); ++i)
      std::fprintf(stderr, "energy_rt:   %g W  %.6g s  %.6g J%s\n", rows[i].cap,
                   rows[i].T, rows[i].E,
                   i == chosen ? "  <- chosen for the rest of the job" : "");
  }
  limit = rows[chosen].cap;
  return true;
}

/// er_step of a profile across power limits (caller holds state.mu): the
/// limit of `phase` (`within` iterations into it), or the default once the
/// list is done; the windows a choice reads open and close here.
int stepPowerLimits(Profile &pf, size_t phase, unsigned within) {
  std::string err;
  // The previous limit's recorded iterations end here.
  if (pf.choice && within == 0 && phase >= 1 && phase - 1 < pf.windows.size()) {
    Profile::Window &w = pf.windows[phase - 1];
    deviceReading(w.t1, w.e1);
    w.disturbed = state.clockChanges != w.changesAtOpen;
  }
  if (phase >= pf.caps.size()) {
    pf.active = false;
    pf.done = true;
    pf.settling = false;
    std::optional<double> chosen;
    double limit = 0;
    std::string chooseErr;
    if (pf.choice && chooseProfiledLimit(pf, limit, chooseErr))
      chosen = limit;
    pf.chosen = chosen.has_value();
    if (chosen) {
      // For the rest of the job, as a plan's cap: set again after a
      // handled signal, restored at exit and by er_restore.
      if (!state.dev->setPowerLimit(*chosen, err))
        return fail("choosing a power limit: " + err);
      state.planPowerCapW = chosen;
    } else if (!state.dev->resetPowerLimit(err)) {
      return fail("profile: " + err);
    }
    state.profileCapW.reset();
    ++state.clockChanges;
    if (!chosen && state.guard)
      state.guard->atDefaults();
    if (!chosen && state.planClocks.empty())
      state.guard.reset();
    // No choice: the job goes on at the default limit, and is told.
    if (!chooseErr.empty())
      return fail("choosing a power limit: " + chooseErr +
                  " (the default limit is back)");
    return 0;
  }
  double want = pf.caps[phase];
  if (state.profileCapW != want) {
    if (!state.dev->setPowerLimit(want, err))
      return fail("profile: " + err);
    // A run across the change has no one limit: like a clock change.
    state.profileCapW = want;
    ++state.clockChanges;
    if (energy::progress::enabled())
      std::fprintf(stderr,
                   "energy_rt: rank %d profiling at a %g W power limit (limit "
                   "%zu of %zu, %u settling and %u recorded iterations)\n",
                   er_rank(), want, phase + 1, pf.caps.size(), pf.settle,
                   pf.perClock);
  }
  // This limit's recorded iterations start here.
  if (pf.choice && within == pf.settle) {
    Profile::Window &w = pf.windows[phase];
    deviceReading(w.t0, w.e0);
    w.changesAtOpen = state.clockChanges;
    if (state.sampler)
      state.sampler->keepFrom(w.t0);
  }
  return 0;
}
/// The end of a sweep of clocks (and of limits, `limits`): the defaults
/// back; what runs after it is not recorded (the profile holds the swept
/// clocks only), and nothing is left changed, so the guard and its restore
/// record go (a plan's clocks keep theirs). Caller holds state.mu.
int endClockSweep(Profile &pf, bool limits) {
  std::string err, limitErr;
  pf.active = false;
  pf.done = true;
  pf.settling = false;
  // Both tried, and the sweep's limit forgotten either way (a handled
  // signal would otherwise set it again).
  state.profileCapW.reset();
  bool clockOk = state.dev->resetSmClock(err);
  bool limitOk = !limits || state.dev->resetPowerLimit(limitErr);
  if (!clockOk || !limitOk)
    return fail("profile: " + (clockOk ? limitErr : err));
  ++state.clockChanges;
  if (state.guard)
    state.guard->atDefaults();
  if (state.planClocks.empty())
    state.guard.reset();
  if (state.sampler)
    state.sampler->noteSmClock(state.dev->currentSmClock());
  return 0;
}

/// A profile's clock set where another is in force (caller holds
/// state.mu); `changed` says whether it was.
bool setProfileClock(int mhz, bool &changed, std::string &err) {
  int now =
      state.sampler ? state.sampler->smClock() : state.dev->currentSmClock();
  changed = mhz != now;
  if (!changed)
    return true;
  if (!state.dev->setSmClock(mhz, err))
    return false;
  if (state.sampler)
    state.sampler->noteSmClock(mhz);
  ++state.switches;
  ++state.clockChanges;
  return true;
}

/// Where iteration `k` after the warm-up lies in a profile: its phase (the
/// clock, limit or pair: limit-major), its place in the phase, whether it
/// settles, and whether it begins the phase. Each limit runs `settle`
/// unrecorded iterations at its first phase, the limit newly set, then
/// `perClock` recorded ones at each: across limits and clocks, its clocks
/// from the highest down, the first alone settling (a lower clock under
/// the same limit lowers the power, which the driver applies at once; a
/// limit is held by a controller over hundreds of milliseconds). Across
/// clocks alone there is no settling (`settle` 0).
struct PhasePosition {
  size_t phase, within;
  bool settling, begins;
};
PhasePosition phasePosition(const Profile &pf, size_t k) {
  size_t n = pf.caps.empty() ? 1 : std::max<size_t>(pf.clocks.size(), 1);
  size_t block = pf.settle + n * pf.perClock;
  size_t limit = k / block, r = k % block;
  if (r < pf.settle + pf.perClock)
    return {limit * n, r, r < pf.settle, r == 0};
  size_t j = r - pf.settle - pf.perClock;
  return {limit * n + 1 + j / pf.perClock, pf.settle + j % pf.perClock, false,
          j % pf.perClock == 0};
}

/// er_step of a profile across power limits and clocks (caller holds
/// state.mu): every limit of the list with every clock of the list under
/// it, the limit's order outside, each limit `settle` unrecorded
/// iterations at its first pair and each pair `perClock` recorded ones
/// (phasePosition); then the defaults. Each pair's
/// runs are one DB entry (its clock, and the limit in its context), so
/// that --energy-plan="choose-power-cap=true" chooses both.
int stepLimitsAndClocks(Profile &pf, size_t phase) {
  std::string err;
  size_t n = pf.clocks.size();
  if (phase >= pf.caps.size() * n)
    return endClockSweep(pf, /*limits=*/true);
  double cap = pf.caps[phase / n];
  int mhz = pf.clocks[phase % n];
  bool capChanged = state.profileCapW != cap, clockChanged = false;
  if (capChanged) {
    if (!state.dev->setPowerLimit(cap, err))
      return fail("profile: " + err);
    state.profileCapW = cap;
    ++state.clockChanges;
  }
  if (!setProfileClock(mhz, clockChanged, err))
    return fail("profile: " + err);
  if ((capChanged || clockChanged) && energy::progress::enabled())
    std::fprintf(stderr,
                 "energy_rt: rank %d profiling at a %g W power limit and %d "
                 "MHz (pair %zu of %zu, %u settling and %u recorded "
                 "iterations)\n",
                 er_rank(), cap, mhz, phase + 1, pf.caps.size() * n,
                 capChanged ? pf.settle : 0u, pf.perClock);
  return 0;
}
} // namespace

int er_step(void) {
  // Only a stop signal that arrives during this call may end the adaptive
  // profile's wait for the other ranks: one before it has reached the
  // program's handler already, on the way back from an earlier call.
  takeChainedSignal();
  std::lock_guard<std::mutex> lock(state.mu);
  if (!state.dev)
    return notInitialized("er_step");
  noticeSignalResets();
  // A new iteration: a plan's "name[k]" lines count begins from here.
  state.occurrences.clear();
  ++state.steps;
  // ENERGY_RT_METRICS_FILE: the Prometheus textfile, rewritten at most every
  // ENERGY_RT_METRICS_INTERVAL seconds (default 15) of wall time.
  if (const char *metrics = std::getenv("ENERGY_RT_METRICS_FILE");
      metrics && !state.worker) {
    if (!*metrics)
      return fail("ENERGY_RT_METRICS_FILE is set but empty: give the "
                  "textfile's path, or unset it");
    static std::chrono::steady_clock::time_point last{};
    double interval = 15;
    if (const char *iv = std::getenv("ENERGY_RT_METRICS_INTERVAL")) {
      char *end = nullptr;
      interval = std::strtod(iv, &end);
      if (end == iv || *end || !(interval >= 0) || !std::isfinite(interval))
        return fail(std::string("ENERGY_RT_METRICS_INTERVAL='") + iv +
                    "' is not a non-negative number of seconds");
    }
    auto now = std::chrono::steady_clock::now();
    if (last == std::chrono::steady_clock::time_point{} ||
        std::chrono::duration<double>(now - last).count() >= interval) {
      last = now;
      if (int rc = writeMetrics(metrics))
        return rc;
    }
  }
  Profile &pf = state.profile;
  ++pf.step;
  // One phase per clock, limit or pair (phasePosition).
  std::optional<PhasePosition> at;
  if (pf.active && pf.step >= pf.warmup)
    at = phasePosition(pf, pf.step - pf.warmup);
  checkpointShard(at && pf.step > pf.warmup && at->begins);
  if (!at)
    return 0;
  size_t phase = at->phase;
  pf.settling = at->settling || std::exchange(pf.resetSeen, false);
  std::string err;
  if (!pf.caps.empty() && !pf.clocks.empty())
    return stepLimitsAndClocks(pf, phase);
  if (!pf.caps.empty())
    return stepPowerLimits(pf, phase, unsigned(at->within));
  if (pf.adaptive && !pf.chosenAll && phase == pf.clocks.size()) {
    // The last chosen clock is done: its energy must be known to choose
    // the next (real devices: wait for the counter to pass it).
    double perIteration = 0;
    if (!resolvePending(/*wait=*/true, err) ||
        !jobEnergyAtLastClock(pf, perIteration, err))
      return fail("profile: " + err);
    pf.chosenAll = !chooseNextClock(pf, perIteration);
  }
  int want = phase < pf.clocks.size() ? pf.clocks[phase] : 0;
  if (!want)
    return endClockSweep(pf, /*limits=*/false);
  bool changed = false;
  if (!setProfileClock(want, changed, err))
    return fail("profile: " + err);
  if (changed) {
    // Progress on a terminal (runtime/Progress.h): one line per clock.
    if (energy::progress::enabled()) {
      std::string of = pf.adaptive ? "at most " + std::to_string(pf.budget)
                                   : std::to_string(pf.clocks.size());
      std::fprintf(stderr,
                   "energy_rt: rank %d profiling at %d MHz (clock %zu of %s, "
                   "%u iterations each)\n",
                   er_rank(), want, phase + 1, of.c_str(), pf.perClock);
    }
  }
  return 0;
}

int er_begin(const char *name) { return er_begin_in(0, name); }

int er_begin_in(unsigned owner, const char *name) {
  if (!name || !*name)
    return fail("er_begin: a region needs a non-empty name");
  // The DB is JSON, whose text is UTF-8: a name that is not would be
  // written with U+FFFD for its bad bytes, and two such names as one key.
  {
    std::string n(name);
    for (size_t i = 0; i < n.size();) {
      size_t len = utf8SequenceAt(n, i);
      if (len == 0) {
        char buf[96];
        std::snprintf(buf, sizeof buf,
                      "er_begin: a region's name is UTF-8 text; byte %zu "
                      "(0x%02x) of '",
                      i, unsigned(static_cast<unsigned char>(n[i])));
        return fail(buf + n.substr(0, i) + "...' does not begin a character");
      }
      i += len;
    }
  }
  std::lock_guard<std::mutex> lock(state.mu);
  if (!state.dev)
    return notInitialized("er_begin");
  noticeSignalResets();
  Region &r = state.regions[{name, threadSerial(), owner}];
  if (r.open)
    return fail(std::string("region '") + name + "' is already open");
  // Real devices: the clock the sampler last read or the plan last set
  // (an NVML read here would cost milliseconds).
  auto clockNow = [] {
    return state.sampler ? state.sampler->smClock()
                         : state.dev->currentSmClock();
  };
  // Simulated devices: the region starts once what was queued before it
  // has run (a real-time device synchronizes here), so that a planned clock
  // applies to the region's own kernels.
  double simJ = 0, simT = 0;
  if (!state.sampler)
    state.sim->exactEnergyAndTime(simJ, simT);
  // The plan's line for this begin: "name[k]" (its k-th in the
  // iteration), else "name".
  uint64_t occurrence = state.occurrences[name]++;
  bool planLoaded = !state.planClocks.empty() || !state.planKept.empty();
  std::string key = name;
  if (planLoaded) {
    std::string indexed =
        std::string(name) + "[" + std::to_string(occurrence) + "]";
    if (state.planClocks.count(indexed) || state.planKept.count(indexed))
      key = std::move(indexed);
  }
  auto planned = state.planClocks.find(key);
  bool isPlanned =
      planned != state.planClocks.end() || state.planKept.count(key);
  // The planned clock first: a begin that fails to set it opens nothing
  // and takes no begin of the plan (a retry is the same k-th begin).
  if (planned != state.planClocks.end() && !state.clocksReleased &&
      planned->second != clockNow()) {
    std::string err;
    if (!state.dev->setSmClock(planned->second, err)) {
      --state.occurrences[name];
      return fail(std::string("region '") + name + "': " + err);
    }
    if (state.sampler)
      state.sampler->noteSmClock(planned->second);
    ++state.switches;
    ++state.clockChanges;
  }
  if (isPlanned) {
    state.planRegionRan = true;
    ++state.planBegins;
    state.planKeysRan.insert(key);
    // One device has one clock: two threads' planned regions at once set
    // it for each other (which one's holds is a race). Said once.
    if (state.openPlanned > 0 && !state.saidPlannedThreads)
      for (const auto &[k, other] : state.regions)
        if (other.open && other.plannedRun && k.thread != threadSerial()) {
          state.saidPlannedThreads = true;
          std::fprintf(stderr,
                       "energy_rt: warning: planned region '%s' begins while "
                       "planned region '%s' is open on another thread: the "
                       "device has one clock, and each sets it for both "
                       "(which holds is a race, and the runs across it are "
                       "in no clock's entry); follow a plan from one "
                       "thread\n",
                       name, k.name.c_str());
          break;
        }
  } else if (planLoaded) {
    auto [it, fresh] =
        state.unplannedBegins.try_emplace(name, std::make_pair(0, occurrence));
    ++it->second.first;
  }
  r.planBeginsAtBegin = state.planBegins;
  r.smMhz = clockNow();
  r.clockChangesAtBegin = state.clockChanges;
  if (state.sampler) {
    r.foreignAtBegin = state.sampler->foreignPolls();
    r.foreignAtStart = state.sampler->heldElsewhereAtLastPoll();
  }
  r.record =
      !(state.profile.active && state.profile.step < state.profile.warmup) &&
      !state.profile.settling &&
      (!state.profile.done || state.profile.chosen) &&
      !state.profile.interrupted;
  r.open = true;
  r.plannedRun = isPlanned;
  r.plannedMhz = planned != state.planClocks.end() ? planned->second : 0;
  r.beginSerial = ++state.beginSerial;
  if (isPlanned)
    ++state.openPlanned;
  else if (state.openPlanned > 0)
    r.insidePlanned = true;
  if (!state.sampler) {
    r.startJ = simJ;
    r.startT = simT;
  } else {
    r.startT = state.dev->now();
    state.sampler->keepFrom(r.startT);
  }
  return 0;
}

/// Closes this thread's region `name` (caller holds state.mu): its run is
/// accounted now (simulated devices) or once the counter passes its end,
/// under `ticket` when that is not 0. Its time and clock are known now.
int endRegion(const char *fn, unsigned owner, const char *name,
              unsigned long long ticket, double *timeS, int *smMhz,
              double *simEnergy = nullptr) {
  if (!name || !*name)
    return fail(std::string(fn) + ": a region needs a non-empty name");
  if (!state.dev)
    return notInitialized(fn);
  Region *open = openRegion(name, owner);
  if (!open)
    return -1;
  noticeSignalResets();
  Region &r = *open;
  double t1 = 0, E1 = 0;
  if (state.sampler)
    t1 = state.dev->now();
  else
    state.sim->exactEnergyAndTime(E1, t1);
  r.open = false;
  // Nested in another planned region of this thread: what runs next in it
  // runs at that region's clock again, not at this one's (set once this
  // run is accounted, below).
  int outerMhz = 0;
  if (r.plannedRun && state.openPlanned > 0) {
    --state.openPlanned;
    const Region *outer = nullptr;
    uint64_t thread = threadSerial();
    if (state.openPlanned > 0 && !state.clocksReleased)
      for (const auto &[k, o] : state.regions)
        if (o.open && o.plannedRun && k.thread == thread &&
            (!outer || o.beginSerial > outer->beginSerial))
          outer = &o;
    if (outer)
      outerMhz = outer->plannedMhz;
  }
  auto restoreOuter = [&]() -> int {
    int now =
        state.sampler ? state.sampler->smClock() : state.dev->currentSmClock();
    if (!outerMhz || outerMhz == now)
      return 0;
    std::string err;
    if (!state.dev->setSmClock(outerMhz, err))
      return fail(std::string("region '") + name + "': " + err);
    if (state.sampler)
      state.sampler->noteSmClock(outerMhz);
    ++state.switches;
    ++state.clockChanges;
    return 0;
  };
  if (state.planBegins > r.planBeginsAtBegin)
    r.enclosesPlanned = true;
  if (timeS)
    *timeS = t1 - r.startT;
  if (smMhz)
    *smMhz = r.smMhz;
  // Across a clock change the runtime made (a nested planned region's, a
  // profile's step): in the totals, under no clock.
  int runMhz = state.clockChanges == r.clockChangesAtBegin ? r.smMhz : 0;
  // A loaded plan's power cap: a change of it counts as a clock change, so
  // the one in force now held over the whole run.
  double runCap = state.planPowerCapW.value_or(state.profileCapW.value_or(0));
  // Across another process's hold on the device (a clock sweep, a plan):
  // its clocks were not this run's to know. In the totals, under no clock,
  // and said once.
  if (state.sampler &&
      (r.foreignAtStart || state.sampler->foreignPolls() != r.foreignAtBegin ||
       state.sampler->heldElsewhereAtLastPoll())) {
    runMhz = 0;
    if (!state.saidForeignHolder) {
      state.saidForeignHolder = true;
      std::fprintf(stderr,
                   "energy_rt: warning: region '%s' ran while another process "
                   "was changing %s's clocks or power limit (it holds the "
                   "device's claim): such runs are in the region's totals "
                   "but in no clock's DB entry\n",
                   name, state.dev->identity().c_str());
    }
  }
  if (!state.sampler) {
    // A simulated device in virtual time runs only the work reported to
    // it: a job ported from Zeus as it is (its PyTorch code runs on the
    // host) measures 0 s and 0 J in every window. Said once, at the first.
    if (t1 == r.startT && state.simRuns == 0 && !state.saidNoSimWork) {
      state.saidNoSimWork = true;
      std::fprintf(stderr,
                   "energy_rt: warning: window '%s' measured 0 s and 0 J: "
                   "no work has been reported to %s (energy_rt.sim_run or "
                   "er_sim_run, or energy_rt.torch's Stage, which reports "
                   "each module's FLOPs and bytes); it runs nothing else\n",
                   name, state.dev->identity().c_str());
    }
    account(r, E1 - r.startJ, t1 - r.startT, runMhz, runCap, r.record);
    if (simEnergy)
      *simEnergy = E1 - r.startJ;
    if (ticket)
      keepTicket(ticket, E1 - r.startJ);
    return restoreOuter();
  }
  state.pending.push_back({&r, r.startT, t1, runMhz, runCap, r.record, ticket});
  if (ticket)
    state.pendingTickets.emplace(ticket, t1);
  // Bounded memory: resolve once a batch waits and the counter moved.
  if (state.pending.size() >= kResolveBatch &&
      state.sampler->coveredUntil() > state.resolvedUpTo) {
    std::string err;
    if (!resolvePending(/*wait=*/false, err))
      return fail(err);
  }
  return restoreOuter();
}

/// Waits until the sampler's curve passes `t`, at most kCounterWait s,
/// without holding state.mu (held again on return): other threads' regions
/// go on meanwhile. False with `err` when the counter stalls, or the
/// sampler went (er_shutdown, er_init) while waiting.
bool waitForCounter(std::unique_lock<std::mutex> &lock, double t,
                    std::string &err) {
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::duration<double>(kCounterWait);
  for (;;) {
    EnergySampler *s = state.sampler.get();
    if (!s) {
      err = "the runtime was shut down or started again while waiting for "
            "the energy counter";
      return false;
    }
    if (s->coveredUntil() >= t)
      return true;
    if (std::chrono::steady_clock::now() > deadline) {
      err = "the energy counter did not change within " +
            std::to_string(kCounterWait) + " s (a stalled counter)";
      return false;
    }
    lock.unlock();
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    lock.lock();
  }
}

/// The energy of `ticket` (`lock` holds state.mu): 0 and forgotten once
/// read; 1 while the counter has not passed its run's end and `wait` is
/// false; -1 when it is unknown, already read or released, or the counter
/// stalls. Waiting releases the lock.
int ticketEnergy(std::unique_lock<std::mutex> &lock, unsigned long long ticket,
                 bool wait, double *energyJ) {
  auto done = state.tickets.find(ticket);
  if (done == state.tickets.end()) {
    auto it = state.pendingTickets.find(ticket);
    if (it == state.pendingTickets.end())
      return fail("er_ticket_energy: ticket " + std::to_string(ticket) +
                  (ticket && ticket < state.nextTicket
                       ? " was read or released already, is one of the oldest "
                         "beyond the " +
                             std::to_string(kTicketsKept) +
                             " kept unread, or er_init or er_shutdown came "
                             "between"
                       : " was not given by er_end_ticket"));
    std::string err;
    double t1 = it->second;
    if (!state.sampler || state.sampler->coveredUntil() < t1) {
      if (!wait)
        return 1;
      if (!waitForCounter(lock, t1, err))
        return fail(err);
    }
    if (!resolvePending(/*wait=*/false, err))
      return fail(err);
    done = state.tickets.find(ticket);
    if (done == state.tickets.end())
      return fail("er_ticket_energy: ticket " + std::to_string(ticket) +
                  " was read or released by another thread meanwhile");
  }
  if (energyJ)
    *energyJ = done->second;
  state.tickets.erase(done);
  return 0;
}

/// Forgets `ticket` wherever it is (read, pending or resolved).
void dropTicket(unsigned long long ticket) {
  state.tickets.erase(ticket);
  state.pendingTickets.erase(ticket);
}

int er_end(const char *name) {
  std::lock_guard<std::mutex> lock(state.mu);
  return endRegion("er_end", 0, name, 0, nullptr, nullptr);
}

int er_end_ticket(const char *name, unsigned long long *ticket, double *time_s,
                  int *sm_mhz) {
  return er_end_ticket_in(0, name, ticket, time_s, sm_mhz);
}

int er_end_ticket_in(unsigned owner, const char *name,
                     unsigned long long *ticket, double *time_s, int *sm_mhz) {
  if (!ticket)
    return fail("er_end_ticket: needs somewhere to put the ticket");
  std::lock_guard<std::mutex> lock(state.mu);
  // Taken before the region ends: a failure after its run went pending
  // must not leave the number to the next window.
  unsigned long long t = state.nextTicket++;
  if (int rc = endRegion("er_end_ticket", owner, name, t, time_s, sm_mhz)) {
    dropTicket(t);
    return rc;
  }
  *ticket = t;
  return 0;
}

int er_ticket_energy(unsigned long long ticket, int wait, double *energy_j) {
  std::unique_lock<std::mutex> lock(state.mu);
  return ticketEnergy(lock, ticket, wait != 0, energy_j);
}

int er_ticket_release(unsigned long long ticket) {
  std::lock_guard<std::mutex> lock(state.mu);
  // Resolved, or still pending (then still accounted when resolved, its
  // energy not kept).
  if (!state.tickets.erase(ticket))
    state.pendingTickets.erase(ticket);
  return 0;
}

int er_abort(const char *name) { return er_abort_in(0, name); }

int er_abort_in(unsigned owner, const char *name) {
  if (!name || !*name)
    return fail("er_abort: a region needs a non-empty name");
  std::lock_guard<std::mutex> lock(state.mu);
  if (!state.dev)
    return notInitialized("er_abort");
  Region *open = openRegion(name, owner);
  if (!open)
    return -1;
  open->open = false; // no run recorded: its work did not complete
  if (open->plannedRun && state.openPlanned > 0)
    --state.openPlanned;
  return 0;
}

int er_end_measure(const char *name, double *energy_j, double *time_s,
                   int *sm_mhz) {
  return er_end_measure_in(0, name, energy_j, time_s, sm_mhz);
}

int er_end_measure_in(unsigned owner, const char *name, double *energy_j,
                      double *time_s, int *sm_mhz) {
  std::unique_lock<std::mutex> lock(state.mu);
  // A simulated device knows the energy now: no ticket to keep.
  if (state.dev && !state.sampler) {
    double e = 0;
    if (int rc =
            endRegion("er_end_measure", owner, name, 0, time_s, sm_mhz, &e))
      return rc;
    if (energy_j)
      *energy_j = e;
    return 0;
  }
  unsigned long long t = state.nextTicket++;
  if (int rc = endRegion("er_end_measure", owner, name, t, time_s, sm_mhz)) {
    dropTicket(t);
    return rc;
  }
  int rc = ticketEnergy(lock, t, /*wait=*/true, energy_j);
  if (rc)
    dropTicket(t); // the run still counts; its energy is not kept
  return rc;
}

int er_result(const char *name, double *energy_j, double *time_s,
              unsigned *count) {
  if (!name || !*name)
    return fail("er_result: a region needs a non-empty name");
  std::lock_guard<std::mutex> lock(state.mu);
  std::string err;
  if (!resolvePending(/*wait=*/true, err))
    return fail(err);
  std::map<std::string, Region> byName = pooledRegions();
  auto it = byName.find(name);
  if (it == byName.end())
    return fail(std::string("no region '") + name + "'");
  if (energy_j)
    *energy_j = it->second.all.sumE;
  if (time_s)
    *time_s = it->second.all.sumT;
  if (count)
    *count = it->second.all.count;
  return 0;
}

int er_flush(const char *path) {
  if (!path || !*path)
    return fail("er_flush: needs a path");
  std::lock_guard<std::mutex> lock(state.mu);
  if (!state.dev)
    return notInitialized("er_flush");
  std::string err;
  bool atExitPath = !state.flushAtExit.empty() && path == state.flushAtExit;
  // Said once per path (a job flushes the same path again and again).
  static std::set<std::string> warned;
  if (!atExitPath && warned.insert(path).second)
    warnSharedPath(path, "er_flush");
  bool resolved = resolvePending(/*wait=*/true, err);
  if (atExitPath)
    state.runsAtExitFlush = state.runsAccounted;
  if (!resolved)
    return fail(err);
  if (!writeShard(path, err)) {
    // The shard at exit that cannot be written (a full disk, a directory
    // gone since er_init checked it) goes to the temporary directory
    // instead, so that what was measured is not lost; still a failure,
    // whose message says where it went.
    if (atExitPath) {
      const char *tmp = std::getenv("TMPDIR");
      std::string alt = std::string(tmp && *tmp ? tmp : "/tmp") +
                        "/energy_rt-rank" + std::to_string(er_rank()) + "-pid" +
                        std::to_string(getpid()) + ".json";
      std::string altErr;
      if (writeShard(alt, altErr))
        err += "; the measurements were written to " + alt + " instead";
      else
        err += "; " + alt + " could not be written either (" + altErr +
               "): the measurements are lost";
    }
    return fail(err);
  }
  state.runsAtFlush = state.runsAccounted;
  for (auto &[name, r] : pooledRegions())
    if (r.acrossClocks)
      std::fprintf(stderr,
                   "energy_rt: note: %llu run(s) of '%s' spanned a clock "
                   "change the runtime made (a profile's step, a planned "
                   "region inside it, a handled signal's reset): in its "
                   "totals, not in the DB, whose "
                   "signatures hold one clock each\n",
                   (unsigned long long)r.acrossClocks, name.c_str());
  // Regions open now (a window left open, one of a thread that ended
  // without closing it): their runs so far are in; the current one is not.
  std::set<std::string> open;
  for (const auto &[key, r] : state.regions)
    if (r.open)
      open.insert(key.name);
  // Said when the open set changes, not at every flush of a job that flushes
  // periodically with its whole-run window open; at most 10 names.
  static std::set<std::string> saidOpen;
  if (!open.empty() && open != saidOpen) {
    std::string names;
    size_t shown = 0;
    for (const std::string &n : open)
      if (shown++ < 10)
        names += (names.empty() ? "'" : ", '") + n + "'";
    if (open.size() > 10)
      names += ", ...";
    std::fprintf(stderr,
                 "energy_rt: note: %zu region(s) open at this flush (%s): "
                 "their current runs are not in it\n",
                 open.size(), names.c_str());
  }
  saidOpen = std::move(open);
  return 0;
}

void er_shutdown(void) {
  std::lock_guard<std::mutex> lock(state.mu);
  writeMetricsFileNow("at er_shutdown");
  state.metricsServer.stop();
  state.sampler.reset();
  state.pending.clear();
  state.tickets.clear();
  state.pendingTickets.clear();
  state.guard.reset(); // restores the default clocks first
  state.planClocks.clear();
  state.planPowerCapW.reset();
  state.profileCapW.reset();
  state.planKept.clear();
  state.planComplete = false;
  state.occurrences.clear();
  state.planKeysRan.clear();
  state.unplannedBegins.clear();
  state.dev.reset();
  state.sim = nullptr;
  state.regions.clear();
}

const char *er_last_error(void) { return lastError.c_str(); }

/// Whether `planned` holds a "name[k]" line for region `name`.
static bool hasIndexedLines(const std::set<std::string> &planned,
                            const std::string &name) {
  auto it = planned.lower_bound(name + "[");
  return it != planned.end() &&
         it->compare(0, name.size() + 1, name + "[") == 0;
}

/// At exit: a plan whose regions never ran changed nothing, which is
/// almost always a naming mismatch (plan-clocks names the schedule's tasks;
/// the job must name its regions alike).
static void warnUnusedPlan() {
  std::lock_guard<std::mutex> lock(state.mu);
  if (state.planClocks.empty() && state.planKept.empty())
    return;
  std::set<std::string> planned, ran, unused, windows;
  for (const auto &[name, mhz] : state.planClocks)
    planned.insert(name);
  for (const auto &[key, r] : state.regions) {
    ran.insert(key.name);
    if (r.enclosesPlanned || r.insidePlanned)
      windows.insert(key.name);
  }
  for (const std::string &name : planned)
    if (!state.planKeysRan.count(name))
      unused.insert(name);
  // The first three names, then "..." for the rest.
  auto some = [](const std::set<std::string> &names) {
    std::string text;
    size_t shown = 0;
    for (const std::string &name : names)
      if (shown++ < 3)
        text += (text.empty() ? "" : ", ") + name;
    return names.empty() ? std::string("none")
                         : text + (names.size() > 3 ? ", ..." : "");
  };
  // Regions a complete plan does not have (a job of more microbatches
  // than the plan's, regions renamed since): they ran at whatever clock
  // the region before them left. Windows around planned regions (an
  // iteration's) and regions nested inside one (which run at its clock:
  // a nested planned region's end gives it back) are not among them.
  // A region the plan has "name[k]" lines for whose begins ran past them
  // (more microbatches than planned, or no er_step between iterations)
  // is named with the first begin no line took and their count.
  bool indexed = false;
  for (const std::string &name : planned)
    indexed |= !name.empty() && name.back() == ']';
  std::set<std::string> foreign;
  if (state.planComplete && state.planRegionRan)
    for (const auto &[name, begins] : state.unplannedBegins)
      if (!windows.count(name)) {
        std::string first = name + "[" + std::to_string(begins.second) + "]";
        bool hasLines = hasIndexedLines(planned, name);
        foreign.insert(
            hasLines ? first + " and on: " + std::to_string(begins.first) +
                           " begin" + (begins.first == 1 ? "" : "s")
                     : name);
      }
  if (!foreign.empty())
    std::fprintf(stderr,
                 "energy_rt: warning: %zu region(s) ran that the plan's "
                 "schedule does not have (%s): each ran at the clock in force "
                 "when it began; was the plan made for this job (its "
                 "microbatches, its region names)?%s\n",
                 foreign.size(), some(foreign).c_str(),
                 indexed && state.steps == 0
                     ? " The plan's name[k] lines count each region's begins "
                       "from er_step (energy_rt.step()), which this job never "
                       "called: call it once per iteration"
                     : "");
  if (unused.empty())
    return;
  if (!state.planRegionRan)
    std::fprintf(stderr,
                 "energy_rt: warning: none of the %zu regions the plan names "
                 "(%s) ran, so the plan changed no clock; the regions that "
                 "ran: %s\n",
                 planned.size(), some(planned).c_str(), some(ran).c_str());
  else // one misspelt name leaves its region at whatever clock was set
    std::fprintf(stderr,
                 "energy_rt: warning: %zu of the %zu regions the plan names "
                 "never ran (%s): their clocks were never set%s\n",
                 unused.size(), planned.size(), some(unused).c_str(),
                 indexed && state.steps > 0
                     ? " (name[k] counts a region's begins from each er_step: "
                       "an iteration with fewer begins, or er_step called "
                       "more than once per iteration)"
                     : "");
}

/// The plan's check at exit (warnUnusedPlan), registered once.
static void registerPlanCheck() {
  static std::once_flag registered;
  std::call_once(registered, [] { std::atexit(warnUnusedPlan); });
}

/// The guard a plan's changes go through, made at its first change (state.mu
/// held): whether clocks may be set at all is tried now, at `probeMhz`,
/// not at the first planned region mid-job (a GPU that refuses: no
/// permission).
static bool planGuard(int probeMhz, std::string &err) {
  if (state.guard)
    return true;
  std::string held;
  if (heldByAnotherProcess(*state.dev, held)) {
    err = "following a plan: " + held;
    return false;
  }
  state.guard = std::make_unique<ClockGuard>(*state.dev);
  state.clocksReleased = false;
  if (!state.dev->setSmClock(probeMhz, err) || !state.dev->resetSmClock(err)) {
    err = "following a plan: cannot set the SM clocks of " +
          state.dev->identity() + ": " + err;
    return false;
  }
  state.guard->atDefaults();
  return true;
}

/// A plan's power cap (plan-clocks' "# power_cap_W W", from a plan made
/// with --energy-power-cap): set now, for the rest of the job, as
/// `energy-prof run-plan` sets it for a whole job; the guard restores the
/// limit in force before at er_shutdown, at exit and on fatal signals.
static bool planPowerCap(double watts, std::string &err) {
  std::lock_guard<std::mutex> lock(state.mu);
  if (!state.dev) {
    err = "er_plan_load: call er_init first";
    return false;
  }
  PowerLimits lim;
  std::string why;
  if (!state.dev->powerLimits(lim, why)) {
    err = "the plan caps the power of " + state.dev->identity() +
          " but its power limit cannot be read: " + why;
    return false;
  }
  if (watts < lim.minW || watts > lim.maxW) {
    char buf[160];
    std::snprintf(buf, sizeof buf,
                  "power cap %g W outside %s's range [%g, %g] W", watts,
                  state.dev->identity().c_str(), lim.minW, lim.maxW);
    err = buf;
    return false;
  }
  std::vector<int> supported = state.dev->supportedSmClocks();
  if (supported.empty()) {
    err = state.dev->identity() + " reports no SM clocks";
    return false;
  }
  if (!planGuard(supported.front(), err))
    return false;
  if (!state.dev->setPowerLimit(watts, err)) {
    err = "following a plan: cannot set the power limit of " +
          state.dev->identity() + ": " + err;
    return false;
  }
  // A run across the change has no one signature: like a clock change.
  if (!state.planPowerCapW || *state.planPowerCapW != watts)
    ++state.clockChanges;
  state.planPowerCapW = watts;
  return true;
}

int er_plan_clock(const char *name, int sm_mhz) {
  if (!name || !*name)
    return fail("er_plan_clock: a region needs a non-empty name");
  std::lock_guard<std::mutex> lock(state.mu);
  if (!state.dev)
    return notInitialized("er_plan_clock");
  // A profile sweeps the clocks; a plan would hold its regions at one.
  if (const char *sweep = profileVariable())
    return fail(std::string("this process is profiled (") + sweep +
                ", energy-prof profile): following a plan now would hold its "
                "regions at the plan's clocks and the profile would not "
                "measure what it sweeps; profile without the plan, then plan");
  const char *allow = std::getenv("ENERGY_RT_ALLOW_CLOCK_CHANGES");
  if (!allow || std::string(allow) != "1")
    return fail("following a plan changes SM clocks: set "
                "ENERGY_RT_ALLOW_CLOCK_CHANGES=1 to allow it (the defaults "
                "are restored at er_shutdown, at exit and on fatal signals)");
  std::vector<int> supported = state.dev->supportedSmClocks();
  if (std::find(supported.begin(), supported.end(), sm_mhz) == supported.end())
    return fail(std::string("region '") + (name ? name : "") +
                "': " + std::to_string(sm_mhz) +
                " MHz is not a supported SM clock of " + state.dev->identity() +
                " (it supports " + describeClocks(supported) + ")");
  std::string err;
  if (!planGuard(sm_mhz, err))
    return fail(err);
  state.planClocks[name ? name : ""] = sm_mhz;
  registerPlanCheck();
  return 0;
}

int er_plan_load(const char *path) {
  if (!path || !*path)
    return fail("er_plan_load: needs a path");
  // "%r": the rank, as in er_flush (one clock file per rank's device).
  std::string file = withRank(path);
  struct stat st;
  if (::stat(file.c_str(), &st) != 0)
    return fail("cannot read '" + file + "': " + std::strerror(errno));
  if (!S_ISREG(st.st_mode))
    return fail("'" + file + "' is not a plan file (not a regular file)");
  std::ifstream in(file, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)),
                   std::istreambuf_iterator<char>());
  if (!in && !in.eof())
    return fail("cannot read '" + file + "'");
  if (size_t first = text.find_first_not_of(" \t\r\n");
      first != std::string::npos && text[first] == '{')
    return fail(file + ": a JSON file, not a clock plan: a plan exported by "
                       "energy-translate --export-plan becomes one device's "
                       "\"region sm_mhz\" lines with energy-prof plan-clocks "
                       "PLAN --plan-device NAME");
  // `name sm_mhz` per line (energy-prof plan-clocks), '#' comments; a task
  // named twice is refused (which clock was meant is not ours to guess).
  std::map<std::string, int> firstLine;
  std::vector<std::tuple<std::string, int, std::string>> lines;
  std::string plannedKind;
  std::set<std::string> kept;
  bool complete = false;
  std::optional<double> powerCap;
  int powerCapLine = 0;
  int lineNo = 0;
  for (size_t at = 0; at < text.size();) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos)
      end = text.size();
    std::string line = text.substr(at, end - at);
    at = end + 1;
    ++lineNo;
    std::string where = file + ":" + std::to_string(lineNo);
    if (line.find('\0') != std::string::npos)
      return fail(where + ": a NUL byte: not a plan file");
    // "# kind K" (plan-clocks): the GPU the plan was made for; "# every
    // task" (plan-clocks): the file names all of its device's tasks.
    if (line.rfind("# kind ", 0) == 0)
      plannedKind = line.substr(7);
    if (line.rfind("# every task", 0) == 0)
      complete = true;
    // "# power_cap_W W" (plan-clocks, a plan made with --energy-power-cap):
    // the device's power limit for the rest of the job. A comment that
    // looks like one but is not ("#power_cap_W", "# Power_Cap_W") would
    // leave the job uncapped without a word: refused.
    bool capLike = false;
    if (size_t h = line.find_first_not_of(" \t");
        h != std::string::npos && line[h] == '#') {
      std::string body = line.substr(h + 1);
      body.erase(0, std::min(body.size(), body.find_first_not_of(" \t")));
      for (char &ch : body)
        ch = char(std::tolower((unsigned char)ch));
      capLike =
          body.rfind("power_cap", 0) == 0 || body.rfind("power cap", 0) == 0;
    }
    if (capLike && line.rfind("# power_cap_W ", 0) != 0)
      return fail(where + ": expected \"# power_cap_W W\" (a plan's power "
                          "cap, as plan-clocks writes it)");
    if (line.rfind("# power_cap_W", 0) == 0) {
      std::istringstream capFields(line.substr(13));
      double w = 0;
      std::string extra;
      if (!(capFields >> w) || !std::isfinite(w) || w <= 0 ||
          (capFields >> extra))
        return fail(where + ": expected \"# power_cap_W W\" (a positive "
                            "number of watts)");
      if (powerCap)
        return fail(where + ": a second power cap (first at line " +
                    std::to_string(powerCapLine) + ")");
      powerCap = w;
      powerCapLine = lineNo;
      continue;
    }
    size_t hash = line.find('#');
    if (hash != std::string::npos)
      line.resize(hash);
    std::istringstream fields(line);
    std::string name, mhzText, extra;
    if (!(fields >> name))
      continue; // blank or comment
    char *mhzEnd = nullptr;
    long mhz = 0;
    if (fields >> mhzText && mhzText == "-" && !(fields >> extra)) {
      // A task the plan leaves at the clock in force.
      auto [it, fresh] = firstLine.try_emplace(name, lineNo);
      if (!fresh)
        return fail(where + ": '" + name + "' again (first at line " +
                    std::to_string(it->second) + ")");
      kept.insert(name);
      continue;
    }
    if (!mhzText.empty())
      mhz = std::strtol(mhzText.c_str(), &mhzEnd, 10);
    if (mhzText.empty() || *mhzEnd != 0 || mhz <= 0 || mhz > 100000 ||
        (fields >> extra))
      return fail(where + ": expected \"name sm_mhz\"");
    auto [it, fresh] = firstLine.try_emplace(name, lineNo);
    if (!fresh)
      return fail(where + ": '" + name + "' again (first at line " +
                  std::to_string(it->second) + ")");
    lines.push_back({name, int(mhz), where});
  }
  if (lines.empty() && !powerCap)
    std::fprintf(stderr,
                 "energy_rt: warning: %s names no region%s: the plan changes "
                 "no clock\n",
                 file.c_str(), kept.empty() ? "" : " with a clock");
  // A plan for another GPU: its clocks may exist here, but its times and
  // energies are the other GPU's (as run-plan says). GPU models compared
  // ("A100" of "A100-SXM4" and of "nvml:NVIDIA A100-SXM4-80GB").
  if (!plannedKind.empty()) {
    std::string here;
    {
      std::lock_guard<std::mutex> lock(state.mu);
      here = state.dev ? state.dev->identity() : "";
    }
    std::string a = gpuModelOf(here), b = gpuModelOf(plannedKind);
    if (!a.empty() && !b.empty() && a != b)
      std::fprintf(stderr,
                   "energy_rt: warning: %s was planned for %s but this "
                   "process measures %s: the plan's times and energies are "
                   "the other GPU's\n",
                   file.c_str(), plannedKind.c_str(), here.c_str());
  }
  // All of the file or none of it: a line refused after others were taken
  // would leave the job following part of the plan.
  // A file replaces the clocks set before it (an earlier file's, or
  // er_plan_clock's): two plans' lines merged would follow neither.
  std::map<std::string, int> before;
  std::set<std::string> keptBefore;
  bool completeBefore = false;
  {
    std::lock_guard<std::mutex> lock(state.mu);
    before = state.planClocks;
    keptBefore = state.planKept;
    completeBefore = state.planComplete;
    state.planClocks.clear();
  }
  auto restore = [&] {
    std::lock_guard<std::mutex> lock(state.mu);
    state.planClocks = before;
    state.planKept = keptBefore;
    state.planComplete = completeBefore;
  };
  for (const auto &[name, mhz, where] : lines)
    if (er_plan_clock(name.c_str(), mhz) != 0) {
      std::string why = where + ": " + lastError;
      restore();
      return fail(why);
    }
  std::optional<double> priorCap;
  {
    std::lock_guard<std::mutex> lock(state.mu);
    priorCap = state.planPowerCapW;
  }
  if (powerCap) {
    // Under the same consent as the clocks, and after them: refused, the
    // clocks taken above are dropped too.
    const char *allow = std::getenv("ENERGY_RT_ALLOW_CLOCK_CHANGES");
    const char *sweep = profileVariable();
    std::string err;
    if (!allow || std::string(allow) != "1")
      err = "following a plan changes the power limit: set "
            "ENERGY_RT_ALLOW_CLOCK_CHANGES=1 to allow it (the limit in force "
            "is restored at er_shutdown, at exit and on fatal signals)";
    else if (sweep)
      err = std::string("this process is profiled (") + sweep +
            ", energy-prof profile): a plan's power cap would change what the "
            "profile measures; profile without the plan, then plan";
    if (!err.empty() || !planPowerCap(*powerCap, err)) {
      std::string why = file + ":" + std::to_string(powerCapLine) + ": " + err;
      restore();
      return fail(why);
    }
  }
  // A second plan in the process: its cap replaced the first's, or, without
  // one, left the first's in force -- either way, said.
  if (priorCap && powerCap && *powerCap != *priorCap)
    std::fprintf(stderr,
                 "energy_rt: warning: %s set a power cap of %g W in place of "
                 "the %g W a plan loaded before set\n",
                 file.c_str(), *powerCap, *priorCap);
  else if (priorCap && !powerCap)
    std::fprintf(stderr,
                 "energy_rt: warning: %s has no power cap: the %g W a plan "
                 "loaded before set stays in force\n",
                 file.c_str(), *priorCap);
  {
    std::lock_guard<std::mutex> lock(state.mu);
    state.planKept = kept;
    state.planComplete = complete;
  }
  if (!before.empty() || !keptBefore.empty())
    std::fprintf(stderr,
                 "energy_rt: warning: %s replaces the %zu region line(s) set "
                 "before it (a plan loaded earlier, or er_plan_clock)\n",
                 file.c_str(), before.size() + keptBefore.size());
  registerPlanCheck();
  return 0;
}

int er_sm_clock(int *sm_mhz, unsigned *switches) {
  std::lock_guard<std::mutex> lock(state.mu);
  if (!state.dev)
    return notInitialized("er_sm_clock");
  if (sm_mhz)
    *sm_mhz = state.dev->currentSmClock(); // a real read: not a hot path
  if (switches)
    *switches = state.switches;
  return 0;
}

int er_static_power(double *watts) {
  std::lock_guard<std::mutex> lock(state.mu);
  if (!state.dev)
    return notInitialized("er_static_power");
  if (watts)
    *watts = state.staticPower;
  return 0;
}

const char *er_device(void) {
  std::lock_guard<std::mutex> lock(state.mu);
  static thread_local std::string identity;
  identity = state.dev ? state.dev->identity() : "";
  return identity.c_str();
}

const char *er_version(void) {
  static const std::string v = energy::versionString();
  return v.c_str();
}

int er_sim_run(double flops, double bytes) {
  std::lock_guard<std::mutex> lock(state.mu);
  if (!state.dev)
    return notInitialized("er_sim_run");
  if (!state.sim)
    return fail("er_sim_run needs a simulated device (this process measures " +
                state.dev->identity() + ")");
  auto num = [](double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return std::string(buf);
  };
  if (!(flops >= 0 && bytes >= 0 && std::isfinite(flops) &&
        std::isfinite(bytes)))
    return fail("er_sim_run: flops and bytes must be finite and "
                "non-negative; got " +
                num(flops) + " FLOP, " + num(bytes) + " B");
  KernelSpec k{"user", flops, bytes};
  // A kernel longer than a day of simulated time is a unit mistake, not a
  // workload (and would hold a real-time device for that long).
  if (double T = state.sim->modelTime(k); !(T <= 86400))
    return fail("er_sim_run: a kernel of " + num(flops) + " FLOP and " +
                num(bytes) + " B would run " + num(T) + " s on " +
                state.dev->identity() + " (more than a day)");
  state.sim->run(k);
  ++state.simRuns;
  return 0;
}

} // extern "C"
