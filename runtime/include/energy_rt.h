/*===- energy_rt.h - measure named regions of a running program -*- C -*-===//
 *
 * A small C API for training and serving processes, like Zeus's monitor
 * windows: begin/end a named region around user code; the runtime reads the
 * device's energy counter and clock at both ends and accumulates per-name
 * energy, time and count. er_flush writes a version-1 signature DB
 * (docs/SIGNATURE-DB.md), one shard per rank ("%r" in the path becomes the
 * rank from RANK, LOCAL_RANK, SLURM_PROCID or OMPI_COMM_WORLD_RANK), one
 * entry per region and SM clock; a run during which the runtime changed
 * the clock (a profile's step, a planned region inside it, the reset before
 * a signal handler of the program's) counts in the
 * region's totals (er_result) but in no clock's entry, and er_flush says
 * so on standard error.
 *
 * On a GPU ("cuda:<i>") er_begin/er_end only take the time (0.23 us a pair
 * on an H200): a runtime thread polls NVML's energy counter every 10 ms
 * (it changes every 100 ms; a read costs milliseconds there) and a
 * region's energy is read off the counter's piecewise-linear curve
 * (runtime/Sampler.h), so er_result and er_flush wait up to about 100 ms
 * for the counter to pass the last region's end. Simulated devices give
 * each region the model's exact energy (runtime/SimDevice.h; their counter's
 * 100 ms steps would make regions shorter than that meaningless, and there
 * is no wall-clock curve to interpolate on virtual time).
 *
 * A process forked after er_init (a data loader's workers) has none of
 * this: its calls fail until it calls er_init itself, and neither its exit
 * nor a signal to it touches the parent's sampler or restores the parent's
 * clocks.
 *
 * Every function returns 0 on success and -1 on error (er_last_error says
 * why). Thread-safe. A region name is per thread: the same name begun in
 * several threads is one region per thread (each must end its own), and
 * er_result and er_flush pool them by name.
 *
 *===----------------------------------------------------------------------===*/

#ifndef ENERGY_RT_H
#define ENERGY_RT_H

#ifdef __cplusplus
extern "C" {
#endif

/* `device`: "sim:a100" | "sim:a40" | "sim:h100" | "sim:h200" | "sim:b200" |
 * "cuda:<index>"
 * (CUDA's numbering: the index-th GPU of CUDA_VISIBLE_DEVICES where it is
 * set) | "cuda" (this process's GPU: cuda:0 where CUDA_VISIBLE_DEVICES names
 * one GPU, else cuda:$LOCAL_RANK, else cuda:0), or
 * NULL for $ENERGY_RT_DEVICE. Measures the idle static power once: call it
 * once the process holds its CUDA context (after moving the model to the GPU),
 * so that it measures the ready device's draw -- on an H200 124 W with a
 * context, 79-81 W without one (examples/data/h200/README.md).
 * Simulated devices run on virtual time; with ENERGY_RT_SIM_REALTIME=k
 * (wall seconds per simulated second in [0.001, 1000], e.g. 1) they live
 * on the wall clock from the end of er_init: er_sim_run queues its kernel
 * like a CUDA launch and returns at once, a region's edges wait until the
 * queued kernels have run (k x their modelled time), and wall time with
 * nothing queued is idle at static power (runtime/SimDevice.h), so the
 * waits between the ranks of a job are real. */
int er_init(const char *device);
int er_begin(const char *name);
int er_end(const char *name);
/* Accumulated totals of a region: energy (J), time (s), completed count. */
int er_result(const char *name, double *energy_j, double *time_s,
              unsigned *count);
/* er_end, then this run's own energy (J), time (s) and SM clock (MHz); on a
 * GPU it waits for the counter to pass the run's end (up to ~100 ms). */
int er_end_measure(const char *name, double *energy_j, double *time_s,
                   int *sm_mhz);
/* er_end without waiting for the energy, for windows whose energy is read
 * later or never (on a GPU er_end_measure waits up to ~100 ms for the
 * counter): the run's time (s) and SM clock (MHz) now, and a ticket for
 * its energy. er_ticket_energy gives the energy (J) and forgets the
 * ticket: 0 once known; with `wait` 0 it returns 1 while the counter has
 * not yet passed the run's end, otherwise it waits for that (up to ~100
 * ms); -1 for a ticket read or released already. er_ticket_release
 * forgets an unread ticket, if still held (its run still counts in the
 * region's totals; it never fails).
 * At most 2^20 energies are kept unread: beyond, the oldest are forgotten.
 * Simulated devices know the energy at once. */
int er_end_ticket(const char *name, unsigned long long *ticket, double *time_s,
                  int *sm_mhz);
int er_ticket_energy(unsigned long long ticket, int wait, double *energy_j);
int er_ticket_release(unsigned long long ticket);
/* The same, in an independent set of region names `owner` (a Python
 * Monitor each, as Zeus's monitors are independent): the same name open in
 * two sets is two regions; er_result, er_flush and the metrics pool every
 * set's runs by name. er_begin, er_end, er_end_ticket, er_end_measure and
 * er_abort use set 0. */
int er_begin_in(unsigned owner, const char *name);
int er_end_ticket_in(unsigned owner, const char *name,
                     unsigned long long *ticket, double *time_s, int *sm_mhz);
int er_end_measure_in(unsigned owner, const char *name, double *energy_j,
                      double *time_s, int *sm_mhz);
int er_abort_in(unsigned owner, const char *name);
/* Closes an open region without recording its run: the work inside it
 * failed (an exception), so its time and energy are no signature. */
int er_abort(const char *name);
int er_flush(const char *path);
/* Prints, once, what the job should know as it ends: a clock sweep cut
 * short, a sweep whose runs since the last er_flush are written nowhere
 * (no ENERGY_RT_FLUSH_AT_EXIT), regions still open at the at-exit flush.
 * The runtime's own exit handler calls it; a language runtime whose exit
 * path may skip C's atexit (Python's, after a KeyboardInterrupt) calls it
 * first. Returns 0. */
int er_exit_warnings(void);
/* Restores the clocks and power limits the runtime changed and stops
 * changing them (a clock sweep and a plan end; regions keep being measured,
 * at the defaults), keeping every measurement for a later er_flush. For a
 * process's exit path that C's exit handlers may not see: Python ends
 * itself with SIGINT after an uncaught KeyboardInterrupt, skipping them, so
 * the Python package calls it at exit. Returns 0. */
int er_restore(void);
/* Restores what the runtime changed (clocks), stops its threads and drops
 * every region, flushed or not: er_flush first to keep them. A second
 * er_init without er_shutdown is refused while runs recorded since the
 * last er_flush (or regions still open) would be dropped. */
void er_shutdown(void);
const char *er_last_error(void);
/* The process's rank from the launcher's environment (RANK, LOCAL_RANK,
 * SLURM_PROCID, OMPI_COMM_WORLD_RANK: the first set; 0 if none; -1 if it is
 * not a non-negative integer below 2^31, which er_init then refuses). */
int er_rank(void);
/* Simulated devices only: run a kernel of `flops` and `bytes` (tests and
 * examples without a GPU). Both finite and non-negative, and the kernel no
 * longer than a day of simulated time. */
int er_sim_run(double flops, double bytes);

/* Following a DVFS plan inside the process, instruction by instruction (as
 * Perseus does): er_plan_clock maps a region name to an SM clock, and
 * er_begin(name) then sets that clock before the region when the device is
 * not already at it. Changing clocks is an explicit opt-in: the environment
 * must hold ENERGY_RT_ALLOW_CLOCK_CHANGES=1. The default clocks come back
 * at er_shutdown, at exit and on every fatal signal (INT, TERM, HUP, QUIT,
 * ABRT, SEGV, BUS, FPE, ILL, PIPE, ALRM, USR1/2, XCPU, XFSZ; the
 * application's own handlers still run after the restore). er_plan_load reads
 * "name sm_mhz" lines ("name -": keep the clock in force; "name[k]": the
 * clock of region name's k-th begin since the last er_step, from 0, before
 * a "name" line, as `plan-clocks --by-key` writes them; a file replaces
 * the lines set before it; a planned region nested in another gives the
 * outer one's clock back at its end; '#' comments;
 * "# every task" marks a file naming all of its device's tasks, so that
 * regions outside it are warned about at exit; "# power_cap_W W", a plan
 * made with --energy-power-cap: the device's power limit, set at once for
 * the rest of the job and restored with the clocks), as `energy-prof
 * plan-clocks` writes them from a plan file (docs/PLAN.md); "%r" in its
 * path is the rank, as
 * in er_flush. A profiled process (ENERGY_RT_PROFILE_CLOCKS or
 * ENERGY_RT_PROFILE_POWER_LIMITS) refuses a plan: it would pin the clocks or
 * the limit the profile sweeps. */
int er_plan_clock(const char *name, int sm_mhz);
int er_plan_load(const char *path);
/* The device's current SM clock and the clock changes made for the plan. */
int er_sm_clock(int *sm_mhz, unsigned *switches);
/* Profiling across clocks inside the job: with ENERGY_RT_PROFILE_CLOCKS
 * ("1410,1200,990", "all", "every:K" or "adaptive[:B]", B clocks chosen as
 * the sweep goes; in a job of several ranks -- WORLD_SIZE, SLURM_NTASKS or
 * OMPI_COMM_WORLD_SIZE -- from the job's energy, each rank writing its own
 * to ENERGY_RT_PROFILE_SYNC_DIR, which energy-prof profile sets) and
 * ENERGY_RT_ALLOW_CLOCK_CHANGES=1 in the environment at er_init (which
 * checks that the clocks can be set), the first ENERGY_RT_PROFILE_WARMUP
 * iterations (default 2) run at the default clock and are not recorded,
 * then each clock of the list runs ENERGY_RT_PROFILE_ITERATIONS iterations
 * (default 3), then the default clock returns and later iterations are not
 * recorded (the profile holds the swept clocks). er_step marks the end of an
 * iteration. er_flush writes one entry per region and clock: an operating
 * set for --energy-fill-signatures. With ENERGY_RT_FLUSH_AT_EXIT=path the
 * DB is flushed at exit, so a job needs no code beyond its regions and
 * er_step; it is also written at er_step when a profiled clock finishes
 * and at most every ENERGY_RT_FLUSH_INTERVAL seconds (default 60; 0: every
 * step; between clocks without waiting for the energy counter), so that a
 * death no exit path sees (SIGKILL, SIGSEGV, SIGABRT, the OOM killer)
 * loses only the runs since.
 * Profiling across power limits instead (Zeus's GlobalPowerLimitOptimizer
 * sweep, in the job): ENERGY_RT_PROFILE_POWER_LIMITS="300,250,200" (W, each
 * within the device's range) under the same consent runs the warm-up at the
 * default limit, then at each limit ENERGY_RT_PROFILE_SETTLE iterations
 * (default 1; a limit takes effect over hundreds of milliseconds) that are
 * not recorded and ENERGY_RT_PROFILE_ITERATIONS that are, at the default
 * clock, then the default limit again. Each entry's context says its limit
 * (power_limit_W): options under caps for --energy-power-cap. With a list
 * of clocks in ENERGY_RT_PROFILE_CLOCKS too (not "adaptive"), every limit
 * runs with every clock under it, from the highest down, the limit's
 * settling iterations at its first clock only (a lower clock under the
 * same limit only lowers the power, which takes at once) and each pair's
 * recorded ones: an entry per region, limit and clock, for --energy-plan's
 * choose-power-cap (the cap and the clocks chosen together). With
 * ENERGY_RT_POWER_LIMIT_CHOICE="max-slowdown=PCT" (least energy within PCT
 * of the fastest limit) or "eta=E,max-power=W" (Zeus's cost) the sweep's
 * end instead sets, for the rest of the job, the limit its iterations say
 * (each limit's recorded iterations from er_step to er_step; in a job of
 * several ranks their energy summed and the slowest time, through
 * ENERGY_RT_PROFILE_SYNC_DIR), as Zeus's GlobalPowerLimitOptimizer does;
 * restored at exit like a plan's cap. */
int er_step(void);
/* Every region's totals (energy, time, runs; per rank and device) and the
 * static power in the Prometheus text exposition format, written whole or
 * not at all -- for node_exporter's textfile collector. With
 * ENERGY_RT_METRICS_FILE set, er_step rewrites it at most every
 * ENERGY_RT_METRICS_INTERVAL seconds (default 15). Metrics:
 * energy_rt_region_energy_joules_total, energy_rt_region_seconds_total,
 * energy_rt_region_runs_total{region, rank, device},
 * energy_rt_static_power_watts{rank, device}. */
int er_write_metrics(const char *path);

/* With ENERGY_RT_METRICS_PORT set at er_init, the same metrics are served
   over HTTP at /metrics (on ENERGY_RT_METRICS_ADDRESS, default 127.0.0.1;
   port 0: any free one; "N+LOCAL_RANK": N plus the node-local rank). A port
   in use is a warning on stderr (the job runs on without the endpoint); a
   worker forked from a measuring process, or spawned as its worker
   (ENERGY_RT_WORKER=1 at er_init: the Python package sets it for its
   multiprocessing workers), neither serves nor writes the textfile.
   ENERGY_RT_METRICS_FILE is also written at exit and at er_shutdown.
   Returns the bound port, or -1 when not serving. */
int er_metrics_port(void);
/* The static power measured at er_init (W), the device's identity (valid
 * until the next er_init or er_shutdown; "" before er_init) and the version
 * of this library ("energy 0.1.0 (git <rev>)"). */
int er_static_power(double *watts);
const char *er_device(void);
const char *er_version(void);

#ifdef __cplusplus
}
#endif

#endif /* ENERGY_RT_H */
