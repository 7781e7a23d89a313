//===- Passes.td - energy passes ---------------------------*- tablegen -*-===//

#ifndef ENERGY_PASSES_TD
#define ENERGY_PASSES_TD

include "mlir/Pass/PassBase.td"

def EnergyEvaluate : Pass<"energy-evaluate", "::mlir::ModuleOp"> {
  let summary = "Compose every energy tree: closures, totals and intervals";
  let description = [{
    Walks each energy tree once (CALCULUS.md sections 2-3). Every
    `energy.seq`/`par`/`multi` gets its closure signature (`-> sig <...>`,
    Property 5.3: every composite is an element, `s' = (E - d') / T'`).
    Every root gets `energy.total`: E, T, d, static energy, sigma_E, the
    prediction interval at `confidence` around the expected energy
    (`expected_E_J`, CALCULUS.md section 3), and the
    expected makespan as a separate refinement (`T_clark_s`: Clark's
    E[max] through every par/multi, or a lowered schedule's sampled
    expectation, `energy.makespan`; never mixed into the point prediction,
    T and E). Elements without signatures are errors naming them.
    With `report=PATH` the same numbers are written as JSON (docs/REPORT.md).
  }];
  let options = [
    Option<"report", "report", "std::string", /*default=*/"\"\"",
           "write a JSON report of roots and composites to this path">,
    Option<"confidence", "confidence", "double", /*default=*/"0.95",
           "two-sided confidence of the prediction intervals, in (0, 1)">,
    Option<"summary", "summary", "bool", /*default=*/"false",
           "print a human-readable summary of each root to stderr">,
  ];
}

def SchedExpand : Pass<"sched-expand", "::mlir::ModuleOp"> {
  let summary = "Expand schedule generators (sched.pipeline) into tasks";
  let description = [{
    Replaces every `sched.pipeline` with its devices, tasks and collectives
    in the enclosing `sched.schedule`: the exact per-stage instruction order
    of the chosen schedule and the dependencies F(s,m) -> F(s+1,m),
    B(s+1,m) -> B(s,m), F(S-1,m) -> B(S-1,m), W(s,m) after B(s,m)
    (docs/SCHED.md). Tasks given only an operating set get the signature of
    its highest-clock option (the default a GPU runs at; the fastest option
    when the set has no clocks) and keep the set.
  }];
  let dependentDialects = ["::energy::sched::SchedDialect"];
}

def SchedTiming : Pass<"sched-timing", "::mlir::ModuleOp"> {
  let summary = "Assign start times by list scheduling";
  let description = [{
    Every task starts as soon as its dependencies allow and its stream is
    free on each of its devices, streams executing in program order; tasks
    with a measured `start` keep it. Writes `start` on every task. A
    dependency cycle (including one formed with stream order) is an error
    naming its tasks.
  }];
}

def SchedToEnergy : Pass<"sched-to-energy", "::mlir::ModuleOp"> {
  let summary = "Lower timed schedules to energy.seq/par/multi (section 3.3.4)";
  let description = [{
    Per device, walks the timeline: gaps become `energy.idle`, back-to-back
    work chains with `energy.seq`, work that overlaps on one device (streams)
    becomes `energy.par` with one operand per stream (idle-prefixed for later
    starters, so partial overlaps are exact), and devices compose with
    `energy.multi`, each padded to the common start and end (docs/SCHED.md).
    Collectives become one element per device with an equal share of their
    dynamic energy. Tasks without `start` are list-scheduled first. The
    evaluated energy equals interval accounting: sum over devices of
    s_dev x makespan plus the sum of d.

    A schedule whose whole body is one `sched.pipeline` is lowered straight
    from the generator: the same tree, names and locations as
    `--sched-expand` followed by this pass, without materializing one
    `sched.task` per instruction (a 10^6-task pipeline lowers in a third of
    the time).

    Where tasks' durations or dependencies' delays vary (`sigma_T`,
    `delay_sigma`), the root gets `energy.makespan`: the expected makespan
    over the dependencies and its spread (CALCULUS.md section 6), which
    evaluation and the deviation test take as the root's E[T] and Var(T).
  }];
  let options = [
    Option<"keepSchedule", "keep-schedule", "bool", /*default=*/"false",
           "keep the sched.schedule next to the energy tree, renamed "
           "@<name>.schedule (the tree keeps the schedule's name)">,
    Option<"makespanSamples", "makespan-samples", "int64_t",
           /*default=*/"-1",
           "Monte Carlo samples of the expected makespan, 2 to 1,000,000 "
           "(-1: 4,000, fewer above 2,500 tasks, about 1e7 task visits in "
           "all; 0: none, the root keeps Clark's moments over its "
           "devices)">,
  ];
  let dependentDialects = ["::energy::EnergyDialect"];
}

// The frontier options --energy-frontier and --energy-plan share.
defvar FrontierOptions = [
    Option<"step", "step", "double", /*default=*/"0",
           "deadline step of the sweep in seconds (0: makespan / 1000)">,
    Option<"quantum", "quantum", "double", /*default=*/"0",
           "floor option times to this many seconds (Perseus: 0.001)">,
    Option<"crashBudget", "crash-budget", "uint64_t",
           /*default=*/"2147483648",
           "work budget of the crash sweep in task visits (0: none); past "
           "it the frontier is truncated, with a warning">,
    Option<"classSweepAbove", "class-sweep-above", "uint64_t",
           /*default=*/"65536",
           "above this many (Pareto) task options a schedule with repeated "
           "structure (pipeline microbatches) gets the class sweep instead "
           "of the crash sweep (docs/FRONTIER.md)">,
    Option<"convexAbove", "convex-above", "uint64_t",
           /*default=*/"65536",
           "up to this many (Pareto) task options the convex relaxation's "
           "exact LP certifies the frontier and seeds it (docs/FRONTIER.md; "
           "its cost grows faster than the class sweep's)">
];

def EnergyFrontier : Pass<"energy-frontier", "::mlir::ModuleOp"> {
  let summary = "Compute each schedule's iteration time-energy frontier";
  let description = [{
    For every `sched.schedule` whose tasks carry operating sets (`options`;
    a task without one runs at its signature), computes the frontier of
    `E = P x makespan + sum d` over the dependency DAG (docs/FRONTIER.md)
    and attaches it as `energy.frontier = [[T_s, E_J, lower_bound_J], ...]`
    (the certified bound at each point; `[T_s, E_J]` where the frontier has
    none), thinned so
    that at every makespan its best point is within `max-error` (relative
    energy, default 0.1 %) of the full frontier's (0: every point), and, if
    `points` is given, to at most that many points; the schedule records
    the thinning in `energy.frontier_thinning`. `energy-translate
    --export-frontier` writes the attribute as CSV (docs/FRONTIER.md).
  }];
  let options = [
    Option<"maxError", "max-error", "double", /*default=*/"0.001",
           "largest relative energy error of the thinned frontier at any "
           "makespan (0: keep every point)">,
    Option<"points", "points", "unsigned", /*default=*/"0",
           "also at most this many points (0: no count limit)">,
  ] # FrontierOptions;
}

def EnergyPlan : Pass<"energy-plan", "::mlir::ModuleOp"> {
  let summary = "Choose a frontier point and write each task's operating point";
  let description = [{
    Computes the frontier as `--energy-frontier` does, picks the point that
    minimizes `objective` (energy, edp = E x T, ed2p = E x T^2, or zeus =
    Zeus's cost `eta E + (1 - eta) MAXPOWER T` with `eta` and `max-power`,
    as `--energy-power-cap` chooses a power limit) among those
    with makespan <= `deadline` (seconds) or <= (1 + `max-slowdown`/100) x
    the fastest makespan, and rewrites every task: its `sig` becomes the
    chosen option's signature and `energy.dvfs` the chosen operating point
    (a discardable attribute). Where the tasks' times or the dependencies'
    delays vary (`sigma_T`, `delay_sigma`, `p2p_latency_sigma`),
    `limit-on=expected` (the default) holds the expected makespan over the
    dependencies to the limit -- the iteration a measurement averages; the
    fastest makespan is then the fastest configuration's expected one --
    and `limit-on=point` the point makespan. The schedule gets
    `energy.plan` with the baseline (every task at its current signature),
    the chosen point and the saving. Re-lowering (`--sched-to-energy
    --energy-evaluate`) then gives the plan's energy with its interval, and
    `energy-translate --export-plan` writes it as JSON (docs/PLAN.md).
  }];
  let options = [
    Option<"deadline", "deadline", "double", /*default=*/"0",
           "largest makespan in seconds (0: use max-slowdown)">,
    Option<"maxSlowdown", "max-slowdown", "double", /*default=*/"0",
           "largest slowdown over the fastest makespan, in percent">,
    Option<"objective", "objective", "std::string", /*default=*/"\"energy\"",
           "energy, edp, ed2p or zeus (eta E + (1 - eta) max-power T)">,
    Option<"eta", "eta", "double", /*default=*/"0.5",
           "objective=zeus: Zeus's energy-time knob in [0, 1]">,
    Option<"maxPower", "max-power", "double", /*default=*/"0",
           "objective=zeus: Zeus's MAXPOWER in W, the job's GPUs' highest "
           "power limits summed">,
    Option<"summary", "summary", "bool", /*default=*/"false",
           "print the plan's summary to stderr">,
    Option<"limitOn", "limit-on", "std::string", /*default=*/"\"expected\"",
           "what the limit holds where times or delays vary: the expected "
           "makespan over the dependencies (expected) or the point makespan "
           "(point); docs/PLAN.md">,
    Option<"annealBudget", "anneal-budget", "uint64_t",
           /*default=*/"1073741824",
           "work budget, in task and edge visits, of the simulated annealing "
           "that improves the configuration at the limit (up to 20,000 task "
           "options; 0: none; docs/FRONTIER.md)">,
    Option<"choosePowerCap", "choose-power-cap", "bool", /*default=*/"false",
           "choose the job's power cap with its clocks: plan the clocks at "
           "every cap the tasks' options were measured at, against one "
           "limit, and keep the best (docs/PLAN.md)">,
  ] # FrontierOptions;
}

def EnergyPowerCap : Pass<"energy-power-cap", "::mlir::ModuleOp"> {
  let summary = "Choose a GPU power limit per schedule, Zeus-style";
  let description = [{
    Reads `table=PATH`, a CSV with the job's time and energy at each power
    limit (columns `power_limit` -- or Zeus's `power_limit_0` -- `time`,
    `energy`; seconds and joules), and chooses the limit that minimizes
    energy within `max-slowdown` percent of the fastest row, or, without
    it, Zeus's cost `eta E + (1 - eta) MAXPOWER T` (`eta`, `max-power` in W:
    the sum of the GPUs' maximum limits). Every `sched.device` of every
    schedule gets `energy.power_cap = #energy.op_point<power_cap = ...>`;
    the schedule gets `energy.power_cap_choice` with the chosen row. A table
    of several jobs (a `model_name` column, as Zeus's) needs `model=NAME`
    to pick one job's rows; two rows of one power limit are an error; a
    table whose time at its highest limit is more than 25 % off the
    schedule's makespan is said (another job's, or a whole run's).
    Without `table=`, each schedule's own table comes from its tasks'
    options measured at several power caps (a DB characterized with
    `--power-limits`): at each cap every task at its option of that cap with
    the highest SM clock (the job under a limit with no clock locked), the
    schedule evaluated by interval accounting; a cap some task has no option
    at is left out, with a warning. `--energy-plan` then plans the clocks
    under the chosen cap (it gives one device's tasks different caps
    otherwise, which no device runs: warned).
  }];
  let options = [
    Option<"table", "table", "std::string", /*default=*/"\"\"",
           "CSV of power_limit,time,energy (none: the tasks' options at their caps)">,
    Option<"model", "model", "std::string", /*default=*/"\"\"",
           "the job's rows of a table with a model_name column">,
    Option<"maxSlowdown", "max-slowdown", "double", /*default=*/"-1",
           "minimize energy within this slowdown (percent; -1: none, Zeus's "
           "cost with eta and max-power instead)">,
    Option<"eta", "eta", "double", /*default=*/"0.5",
           "Zeus's energy-time knob in [0, 1] (default 0.5, Zeus's)">,
    Option<"maxPower", "max-power", "double", /*default=*/"0",
           "Zeus's MAXPOWER in W: the job's GPUs' highest limits summed">,
    Option<"summary", "summary", "bool", /*default=*/"false",
           "print every cap's row and the choice on standard error">,
  ];
}

def EnergyServePlan : Pass<"energy-serve-plan", "::mlir::ModuleOp"> {
  let summary = "Choose each serving workload's batch cap under a latency SLO";
  let description = [{
    Reads measured serving configurations (`measurements=`, ML.ENERGY
    leaderboard files or folders, docs/VALIDATION.md) of `model` on `gpu`
    with tensor parallel degree `tp`, fits the Token-Energy Law on them and
    gives every `sched.serve` the batch cap (`max_batch`) of least predicted
    energy per token whose predicted p90 inter-token latency meets
    `slo-p90-itl-ms`, among the measured caps and the powers of two between
    them (rows in any order; settings measured twice at one cap averaged).
    Each serve op records the choice in `energy.serve_plan` (`batch_cap`,
    whether it was measured (`cap_measured`), `predicted_J_per_token`, its
    95 % interval, the p90 latency predicted there, the SLO, the
    measurements' `cell` -- dataset, task, model, GPU, TP, EP, DP and GPU
    count -- and their number). A cell without measurements, or an SLO no
    cap is predicted to meet, is an error.

    With `clock-model=sim:<gpu>` (the measurements' GPU, e.g. `sim:h100`)
    the batch cap and SM clock are chosen together, SIMULATED: each
    candidate cap's measured or predicted p90 and energy per token scaled
    by that simulated GPU's model of one decode iteration at each clock
    against its highest (calculus/models/SimGpu.h; docs/VALIDATION.md).
    `max_batch` stays the cap chosen at the default clocks (the joint cap
    alone may be worse there), and `energy.serve_plan` records the pair to
    apply together in `sm_clock` (`simulated_gpu`, `batch_cap`,
    `sm_clock_mhz`, `predicted_J_per_token` -- with the power the model
    misses at the default clocks by the account that saves less, held at
    every clock or scaling as the model's -- and
    `predicted_J_per_token_low` by the other, `predicted_p90_itl_ms`, and
    `power_limit_W`: the per-GPU power limit at the clock's predicted mean
    power, which holds the GPU about that clock where clocks cannot be
    locked; absent at the highest clock, which the default limit holds,
    and where it lies outside the settable limits).
  }];
  let options = [
    ListOption<"measurements", "measurements", "std::string",
               "ML.ENERGY measurement files or folders">,
    Option<"model", "model", "std::string", /*default=*/"\"\"",
           "the model id of the measurements">,
    Option<"gpu", "gpu", "std::string", /*default=*/"\"\"",
           "A100, H100, H200 or B200">,
    Option<"tp", "tp", "int", /*default=*/"1", "tensor parallel degree">,
    Option<"gpus", "gpus", "int", /*default=*/"0",
           "the deployment's GPU count where several share the TP (0: the "
           "only one)">,
    Option<"sloP90ItlMs", "slo-p90-itl-ms", "double", /*default=*/"0",
           "the p90 inter-token latency SLO (ms)">,
    Option<"clockModel", "clock-model", "std::string", /*default=*/"\"\"",
           "also choose the SM clock by this simulated GPU's model "
           "(sim:h100, ...; SIMULATED)">,
  ];
}

def EnergyRoute : Pass<"energy-route", "::mlir::ModuleOp"> {
  let summary = "Route a request stream to several serving endpoints";
  let description = [{
    A fleet in the IR: a `sched.schedule` holding one `sched.serve` per model
    endpoint (named like the models of the fleet: the file `fleet=` or the
    schedule's `energy.fleet` dictionary with the same keys, docs/
    ROUTING.md) and its request stream as `energy.requests = [[arrival_s,
    prompt, output], ...]`. Resolves the fleet's policy `policy` (default:
    its first variance-aware policy, else its first), writes each endpoint's
    share as `energy.route_fraction`, and deals the requests to the
    endpoints in arrival order by weighted round robin (each request to the
    endpoint furthest behind its share), so that `--sched-expand`,
    `--sched-to-energy` and `--energy-evaluate` then give each endpoint
    device's energy. The schedule records the policy in `energy.route`.
    A fleet model without an endpoint, or an endpoint the fleet does not
    name, is an error.
  }];
  let options = [
    Option<"fleet", "fleet", "std::string", /*default=*/"\"\"",
           "the fleet file (models, supply, reserve, policies; else the "
           "schedule's energy.fleet)">,
    Option<"policy", "policy", "std::string", /*default=*/"\"\"",
           "the policy to route by (default: the first variance-aware)">,
  ];
}

def EnergyRouteSimulate : Pass<"energy-route-simulate", "::mlir::ModuleOp"> {
  let summary = "Simulate a fleet's supply and reserve under each policy";
  let description = [{
    For every schedule with `energy.requests`, simulates its fleet's
    (`fleet=` file or the schedule's `energy.fleet`) supply and reserve
    under each of its policies (paired Monte Carlo, `runs` and `horizon`
    slots overriding the fleet's) and records on the schedule
    `energy.route_report = {models = ..., policies = ...}`: per model the
    per-task energy used (mean, sd, where it came from), per policy its
    quality, the predicted and simulated auxiliary energy D_T and spilled
    supply W_T (J, mean and 95 % interval half-width). With
    `energies=evaluated` (on a routed schedule after `--sched-expand`) each
    model's per-task energy is its endpoint's evaluated prefill energy per
    prompt token and decode energy per output token applied to the request
    stream's lengths (docs/ROUTING.md).
  }];
  let options = [
    Option<"fleet", "fleet", "std::string", /*default=*/"\"\"",
           "the fleet file (else the schedule's energy.fleet)">,
    Option<"runs", "runs", "unsigned", /*default=*/"0",
           "Monte Carlo runs (0: the fleet's)">,
    Option<"horizon", "horizon", "uint64_t", /*default=*/"0",
           "slots (0: the fleet's)">,
    Option<"energies", "energies", "std::string", /*default=*/"\"fleet\"",
           "per-task energies: fleet (the fleet's distributions) or "
           "evaluated (the expanded endpoints' signatures)">,
  ];
}

def EnergyEmitDvfs : Pass<"energy-emit-dvfs", "::mlir::ModuleOp"> {
  let summary = "Turn a plan's clocks into per-device clock switches";
  let description = [{
    After `--energy-plan`: on each device and stream, in program order, a run
    of tasks with the same `energy.dvfs` keeps the attribute only on its
    first task (the clock persists), and where the device declares a
    clock-switch cost (`energy.switch = #energy.sig<T = ..., d = ...>` on the
    `sched.device`) a `sched.task` of kind "dvfs-switch" with that signature
    is inserted before the first task of each new run, so re-lowering charges
    the transition. A planned schedule's `energy.plan` then also says what
    the switches cost: `switches` (clock changes), `T_with_switches_s` and
    `E_with_switches_J` (the schedule re-timed with the switch tasks).
  }];
}

def EnergyPropagateContext : Pass<"energy-propagate-context", "::mlir::ModuleOp"> {
  let summary = "Propagate entry and runtime contexts through energy trees";
  let description = [{
    Walks each device's timeline in every energy tree (CALCULUS.md
    section 4): an element's entry context is the exit context of what ran
    before it on that device (only data crosses devices); `par` operands
    share an entry context and are each other's runtime context. With the
    mechanisms the devices declare (`energy.thermal`, `energy.capacity`;
    passes/PropagateContext.cpp over calculus/Context.h), every affected element's `sig` becomes its realized
    signature; the null-context one is kept as `energy.null_sig`, the entry
    temperature as `energy.entry_temperature` and a contention slowdown as
    `energy.contention_slowdown`. `--energy-evaluate` then composes in the
    context-dependent algebra.
  }];
}

def EnergyReduce : Pass<"energy-reduce", "::mlir::ModuleOp"> {
  let summary = "Apply the Reduction Theorem: drop contexts with a bounded bias";
  let description = [{
    After `--energy-propagate-context`: checks every element's
    history/interference insensitivity (Eqs. 11 and 12) against
    c_alpha sigma_E, and every device's prefix (cumulative deviation against
    the accumulated bound, so cumulative heating is caught even when every
    pair passes). If all hold, restores the null-context signatures and
    records the worst-case bias `sum m_i c_alpha sigma_i` (m = 1 in seq,
    2 in par/multi, one fewer for the first element on a device) as
    `energy.bias_bound_J` on the root (and `--energy-evaluate` reports it).
    Otherwise it keeps the realized signatures, marks the offending
    elements `energy.needs_characterization`, adds `energy.interaction`
    edges (directed thermal, undirected contention) and emits remarks. With
    `tolerance=` (J) a bound above it draws a remark recommending
    coarsening.
  }];
  let options = [
    Option<"confidence", "confidence", "double", /*default=*/"0.95",
           "c_alpha of the insensitivity tests and the bound">,
    Option<"tolerance", "tolerance", "double", /*default=*/"0",
           "largest accepted bias bound, J (0: no limit)">,
  ];
}

def EnergyCheckDeviation : Pass<"energy-check-deviation", "::mlir::ModuleOp"> {
  let summary = "Compare predictions with measurements (Eq. 23) and refinements (Eq. 24)";
  let description = [{
    `measured=PATH` is a JSON object mapping composite or element names to
    `{"E_J": e, "sigma_E_J": s}` or `{"runs_J": [e1, e2, ...]}` (mean and
    sample standard deviation of the mean). For each, the deviation test of
    Eq. 23 -- |E_pred - E_meas| > c_alpha sqrt(var_pred + var_meas) plus,
    in a reduced tree (`energy.bias_bound_J` on its root), the reduction
    bias of the op's own parts (sum of m_i c_alpha sigma_i) -- marks the
    op `energy.deviation = {...}` and, when it fails, emits a remark naming
    it as an interaction-graph candidate with the likely mechanism (thermal
    where its devices declare a thermal model, contention where co-runners
    declare demands). Every `energy.composite` holding one
    composition is also checked for refinement consistency (Eq. 24): its
    measured signature against that composition of its parts (one holding
    several parts is warned about: no operator says how they compose, so
    wrap them in one `energy.seq`, `energy.par` or `energy.multi`). A run
    that checks nothing (no measurements, no such composite) says so. With `fail-on-deviation=true` every failed
    test, and every measurement that names no composite or element, is an
    error instead of a remark or warning, and the pass fails.
  }];
  let options = [
    Option<"measured", "measured", "std::string", /*default=*/"\"\"",
           "JSON of measured energies">,
    Option<"confidence", "confidence", "double", /*default=*/"0.95",
           "c_alpha of the tests">,
    Option<"failOnDeviation", "fail-on-deviation", "bool",
           /*default=*/"false",
           "a failed test (Eq. 23 or 24), or a measurement naming no op, is "
           "an error and the pass fails (exit 1), for scripts and CI; "
           "otherwise a remark (a warning)">,
  ];
}

def EnergyFillSignatures : Pass<"energy-fill-signatures", "::mlir::ModuleOp"> {
  let summary = "Fill signatures and operating sets from a signature DB";
  let description = [{
    `db=PATH` is a version-1 signature DB (docs/SIGNATURE-DB.md, written by
    `energy-prof characterize`). Every `sched.task` with `db "key"` and every
    `energy.element` with `energy.db = "key"` gets the entry's signature;
    when the DB holds the key at several SM clocks, the task also gets the
    operating set (`options`) and runs at the highest clock. A missing key is
    an error naming it. The device's declared static power stays
    authoritative; a DB static power more than 1 % away draws a warning.

    `model=PATH` instead fills the decode iterations of a serving schedule
    (`sched.task` of kind "decode" whose theta holds `batch`,
    `mean_history`, `weight_bytes`, `kv_bytes_per_token`, with a measured or
    modelled duration) from a fitted Token-Energy Law (`energy-prof fit`,
    docs/MODELS.md): energy per useful token e(q_w, q_kv, tau), iteration
    energy B e, d = B e - s T, var_d = B^2 x' Cov x; such signatures carry
    `energy.method = "analytical: token-law"`.

    Both `db=` and `model=` may be given: the DB fills the tasks with a `db`
    key, the model the others. A missing DB key is an error naming it;
    `fallback=model` prices such a task with the model instead, marks it
    `energy.method = "estimate: <model> (db key 'k' missing)"` and warns
    with the count (an error if the model does not price its kind).
  }];
  let options = [
    Option<"db", "db", "std::string", /*default=*/"\"\"",
           "the signature DB (JSON)">,
    Option<"model", "model", "std::string", /*default=*/"\"\"",
           "a fitted model file (JSON) for analytical signatures">,
    Option<"fallback", "fallback", "std::string", /*default=*/"\"\"",
           "for DB keys that are missing: 'model' (a marked estimate)">,
  ];
}

#endif // ENERGY_PASSES_TD
