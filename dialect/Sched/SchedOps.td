//===- SchedOps.td - sched dialect operations --------------*- tablegen -*-===//

#ifndef SCHED_OPS_TD
#define SCHED_OPS_TD

include "dialect/Sched/SchedDialect.td"
include "dialect/Energy/EnergyAttrs.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/CommonAttrConstraints.td"

// A task's fixed start or measured duration, in s, stored inline: a
// uniqued FloatAttr per task was 15 % of a trace import. The generic form
// and bytecode write an f64 attribute, or `none` when absent.
def Sched_TimeProp
    : Property<"std::optional<double>", "optional time in seconds"> {
  let defaultValue = "std::nullopt";
  let convertToAttribute = [{
    return ::energy::sched::timePropertyAttr($_ctxt, $_storage);
  }];
  let convertFromAttribute = [{
    return ::energy::sched::timePropertyFromAttr($_storage, $_attr, $_diag);
  }];
  // Consistent with ==: 0.0 and -0.0 compare equal, so hash alike.
  let hashProperty = [{
    ::llvm::hash_combine($_storage.has_value(),
                         $_storage && *$_storage != 0
                             ? ::llvm::bit_cast<uint64_t>(*$_storage)
                             : uint64_t(0))
  }];
  let writeToMlirBytecode = [{
    $_writer.writeAttribute(::energy::sched::timePropertyAttr($_ctxt, $_storage))
  }];
  let readFromMlirBytecode = [{
    ::mlir::Attribute attr;
    if (::mlir::failed($_reader.readAttribute(attr)) ||
        ::mlir::failed(::energy::sched::timePropertyFromAttr($_storage, attr,
                                                             nullptr)))
      return ::mlir::failure();
  }];
}

def Sched_ScheduleOp : Sched_Op<"schedule", [Symbol, SymbolTable,
    IsolatedFromAbove, NoTerminator, SingleBlock, NoRegionArguments]> {
  let summary = "a schedule: devices and tasks with dependencies";
  let description = [{
    ```mlir
    sched.schedule @iter {
      sched.device @gpu0 kind "A100-SXM4" static 60 W
      sched.task @F0_0 on @gpu0 kind "forward" {stage = 0, microbatch = 0} sig <T = 50 ms, d = 20 J>
      sched.task @B0_0 on @gpu0 stream 1 after [@F0_0] kind "backward" sig <T = 100 ms, d = 45 J>
    }
    ```
    Program order matters: tasks on one stream of one device execute in the
    order they appear. The verifier rejects dependency cycles (naming the
    cycle), unknown symbols, collectives over missing devices and tasks
    whose fixed times overlap on one stream.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$sym_name attr-dict-with-keyword $body";
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// Whether the schedule holds nothing to run: no task, collective or
    /// generator (devices alone).
    bool hasNoWork() {
      return llvm::all_of(getBody().front(), [](::mlir::Operation &op) {
        return ::mlir::isa<DeviceOp>(op);
      });
    }
  }];
}

def Sched_DeviceOp : Sched_Op<"device", [Symbol, HasParent<"ScheduleOp">]> {
  let summary = "a device (or a lockstep device group) of a schedule";
  let arguments = (ins SymbolNameAttr:$sym_name, StrAttr:$kind,
                       F64Attr:$static_power,
                       OptionalAttr<Energy_OpPointAttr>:$op_point);
  let assemblyFormat = [{
    $sym_name `kind` $kind `static` custom<Power>($static_power)
    (`at` $op_point^)? attr-dict
  }];
  let hasVerifier = 1;
}

def Sched_TaskOp : Sched_Op<"task", [Symbol, HasParent<"ScheduleOp">]> {
  let summary = "a unit of work on one device";
  let description = [{
    `after [...] (delay <time>)?` are finish-to-start dependencies (the task
    starts no earlier than `delay`, default 0, after each of them ends: a
    point-to-point transfer's latency); `delay_sigma <time>` that delay's
    standard deviation from one run to the next (a transfer's jitter: only
    the expected makespan reads it, `--sched-to-energy`'s
    `energy.makespan`); `with [...] lag <time>`
    start-to-start ones (the task starts no earlier than `lag` after they
    start: a gradient all-reduce launched during the backward pass). The
    optional dictionary is the workload parameters theta. `start` is a fixed
    start time (imported traces, or `--sched-timing`); `for` a measured
    duration without an energy (an imported trace before its signatures are
    filled; it must agree with `sig`'s T when both are given). `options` is
    the operating set: the (operating point, T, d[, s]) choices for
    planning. `release <time>` is the earliest time the task may start
    whatever its dependencies (a request's arrival): timing, lowering and
    planning respect it, and a fixed `start` may not precede it.

    Syntax: `sched.task @name on @device (stream N)? (after [...])?
    (delay <time>)? (delay_sigma <time>)? (with [...])? (lag <time>)?
    (release <time>)? (kind "...")? ({theta})?
    (start <time>)? (for <time>)? (sig <...>)? (db "key")? (options [...])?
    (attributes {...})?`. `start` and `for` are stored as properties
    (doubles, in s; the generic form writes `start = <f64>` or `none`).
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       FlatSymbolRefAttr:$device,
                       OptionalAttr<I64Attr>:$stream,
                       OptionalAttr<FlatSymbolRefArrayAttr>:$after,
                       OptionalAttr<F64Attr>:$delay,
                       OptionalAttr<F64Attr>:$delay_sigma,
                       OptionalAttr<FlatSymbolRefArrayAttr>:$with,
                       OptionalAttr<F64Attr>:$lag,
                       OptionalAttr<F64Attr>:$release,
                       OptionalAttr<StrAttr>:$kind,
                       OptionalAttr<DictionaryAttr>:$theta,
                       Sched_TimeProp:$start,
                       Sched_TimeProp:$duration,
                       OptionalAttr<Energy_SignatureAttr>:$sig,
                       OptionalAttr<StrAttr>:$db,
                       OptionalAttr<TypedArrayAttrBase<Energy_OptionAttr,
                                    "operating set">>:$options);
  // $sym_name `on` $device (`stream` $stream^)? (`after` $after^)?
  // custom<OptionalTime>("delay", $delay)
  // custom<OptionalTime>("delay_sigma", $delay_sigma) (`with` $with^)? custom<OptionalTime>("lag", $lag)
  // custom<OptionalTime>("release", $release) (`kind` $kind^)? ($theta^)?
  // custom<OptionalTime>("start", $start) custom<OptionalTime>("for",
  // $duration) (`sig` $sig^)? (`db` $db^)? (`options` $options^)?
  // attr-dict-with-keyword -- by hand (SchedDialect.cpp) so that printing
  // does not materialize the properties as a dictionary per task.
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def Sched_CollectiveOp : Sched_Op<"collective", [Symbol, HasParent<"ScheduleOp">]> {
  let summary = "a collective over several devices (all-reduce, ...)";
  let description = [{
    Runs on every listed device at once, on the given stream of each. Its
    dynamic energy `d` is the total over its devices; lowering splits it
    evenly into one element per device.

    A measured collective (an imported trace) instead carries one part per
    device: `starts [...]` (fixed start times), `durations [...]`,
    optionally `energies [...]` (each part's dynamic energy) and
    `streams [...]`, in the order of its devices. Each part is lowered as
    that device's element with its own time and energy. `part_after
    [[...], ...]` (measured collectives only; one list per device, in the
    order of its devices) gives each part waits of its own, finish-to-start
    without delay, on top of `after`: a rank's kernel that its own part of
    the collective waited for (an imported trace's flow) holds that part,
    not the other ranks'.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       FlatSymbolRefArrayAttr:$devices,
                       OptionalAttr<I64Attr>:$stream,
                       OptionalAttr<FlatSymbolRefArrayAttr>:$after,
                       OptionalAttr<TypedArrayAttrBase<FlatSymbolRefArrayAttr,
                                    "per-part dependencies">>:$part_after,
                       OptionalAttr<FlatSymbolRefArrayAttr>:$with,
                       OptionalAttr<F64Attr>:$lag,
                       OptionalAttr<StrAttr>:$kind,
                       OptionalAttr<DictionaryAttr>:$theta,
                       OptionalAttr<F64Attr>:$start,
                       OptionalAttr<Energy_SignatureAttr>:$sig,
                       OptionalAttr<F64ArrayAttr>:$starts,
                       OptionalAttr<F64ArrayAttr>:$durations,
                       OptionalAttr<F64ArrayAttr>:$energies,
                       OptionalAttr<I64ArrayAttr>:$streams);
  let assemblyFormat = [{
    $sym_name `on` $devices (`stream` $stream^)? (`after` $after^)?
    (`part_after` $part_after^)? (`with` $with^)? `` custom<OptionalTime>("\"lag\"", $lag) (`kind` $kind^)?
    ($theta^)? `` custom<OptionalTime>("\"start\"", $start) (`sig` $sig^)?
    `` custom<QuantityList>("\"starts\"", "::energy::Dimension::Time", $starts)
    `` custom<QuantityList>("\"durations\"", "::energy::Dimension::Time",
                           $durations)
    `` custom<QuantityList>("\"energies\"", "::energy::Dimension::Energy",
                           $energies)
    (`streams` $streams^)? attr-dict-with-keyword
  }];
  let hasVerifier = 1;
}

def Sched_PipelineOp : Sched_Op<"pipeline", [Symbol, HasParent<"ScheduleOp">]> {
  let summary = "a pipeline-parallel training iteration (generator)";
  let description = [{
    ```mlir
    sched.pipeline @train {stages = 4, microbatches = 8, schedule = "1f1b",
        device_kind = "A40", static_power = 65.0,
        forward = #energy.sig<T = 10 ms, d = 2 J>,
        backward = #energy.sig<T = 20 ms, d = 5 J>}
    ```
    Expanded by `--sched-expand` into devices, tasks and collectives in the
    enclosing `sched.schedule` (docs/SCHED.md gives the exact orders).
    `schedule` is one of "gpipe", "1f1b", "interleaved-1f1b", "zb-h1";
    `chunks` virtual stages per rank (interleaved); `data_parallel`
    replicas, each stage group joined by an all-reduce (`allreduce`
    signature) that starts `allreduce_lag` (a fraction of the last backward's
    time) after that backward starts; `p2p_latency` (s) the time from the
    end of a pass to its activation or gradient being usable on the next
    stage (a `delay` on each cross-stage dependency); `p2p_latency_sigma`
    (s) that latency's standard deviation over transfers (each cross-stage
    dependency's `delay_sigma`: the expected makespan, and with it the
    deviation test's prediction, carries the transfers' jitter); `sync` (s) the
    iteration's closing synchronization: once every device's last pass has
    ended, all devices wait this long together (a barrier and the ranks'
    skew around it, as the job measures them; expanded into a
    `sched.collective @sync` of that duration, static power only);
    `sync_sigma` (s) that synchronization's standard deviation from one
    iteration to the next (its `sigma_T`: it widens the prediction's
    interval and the deviation test's threshold, Eq. 23, by the measured
    spread of the barriers); `tensor_parallel`
    devices per stage in
    lockstep, collapsed into one device of `tensor_parallel x static_power`.
    `forward`, `backward` and `weight` (zb-h1) are one signature for every
    stage or an array with one per (virtual) stage; `forward_options` and
    `backward_options` likewise give operating sets. `forward_db` and
    `backward_db` name signature-DB keys instead (one string for every
    stage or one per virtual stage): `--energy-fill-signatures` fills the
    operating sets from the DB, and expansion and lowering refuse a stage
    that has only a key. `source` (optional) names the file the pipeline
    was imported from. Any other attribute without a dialect prefix is
    refused with the valid names (a misspelt `p2p_latncy` would read as a
    latency of 0).

    Syntax: `sched.pipeline @name {fields}`; an integer written for a
    floating-point field (`static_power = 100`) is that number.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       ConfinedAttr<I64Attr, [IntPositive]>:$stages,
                       ConfinedAttr<I64Attr, [IntPositive]>:$microbatches,
                       StrAttr:$schedule,
                       DefaultValuedAttr<I64Attr, "1">:$chunks,
                       DefaultValuedAttr<I64Attr, "1">:$data_parallel,
                       DefaultValuedAttr<I64Attr, "1">:$tensor_parallel,
                       StrAttr:$device_kind,
                       F64Attr:$static_power,
                       OptionalAttr<AnyAttr>:$forward,
                       OptionalAttr<AnyAttr>:$backward,
                       OptionalAttr<AnyAttr>:$weight,
                       OptionalAttr<AnyAttr>:$forward_options,
                       OptionalAttr<AnyAttr>:$backward_options,
                       OptionalAttr<AnyAttr>:$forward_db,
                       OptionalAttr<AnyAttr>:$backward_db,
                       OptionalAttr<Energy_SignatureAttr>:$allreduce,
                       DefaultValuedAttr<F64Attr, "0.5">:$allreduce_lag,
                       DefaultValuedAttr<F64Attr, "0.0">:$p2p_latency,
                       DefaultValuedAttr<F64Attr, "0.0">:$p2p_latency_sigma,
                       DefaultValuedAttr<F64Attr, "0.0">:$sync,
                       DefaultValuedAttr<F64Attr, "0.0">:$sync_sigma,
                       OptionalAttr<StrAttr>:$source);
  // `$sym_name attr-dict`, by hand: an integer written for an f64 field
  // (`static_power = 100`) is read as that number (SchedDialect.cpp).
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def Sched_ServeOp : Sched_Op<"serve", [Symbol, HasParent<"ScheduleOp">]> {
  let summary = "an inference serving workload (generator)";
  let description = [{
    ```mlir
    sched.serve @chat {weight_bytes = 1.5e10, kv_bytes_per_token = 131072.0,
        layers = 28, max_batch = 16, policy = "continuous",
        num_requests = 64, arrival_rate = 4.0, prompt_min = 128,
        prompt_max = 2048, output_min = 16, output_max = 512, seed = 1,
        hbm_bandwidth = 3.35e12, prefill_tokens_per_s = 20000.0,
        iteration_overhead = 0.002, device_kind = "H100-SXM5",
        static_power = 100.0}
    ```
    Expanded by `--sched-expand` into prefill tasks and decode iterations
    on one device (calculus/Serve.h): `policy` "static" or "continuous"; the
    requests are `requests = [[arrival_s, prompt, output], ...]` or the
    seeded generator (`num_requests`, Poisson `arrival_rate` per second --
    0: every request arrives at time 0, an offline batch --,
    uniform prompt and output lengths). Durations follow the documented
    roofline time model (`hbm_bandwidth` B/s, `prefill_tokens_per_s`,
    `iteration_overhead` s). Each decode iteration's theta carries the
    Token-Energy Law coordinates: `batch` (B_eff), `history` (sum of attended
    history over its outputs) and `mean_history`. Energies are left to
    signature providers, unless `dynamic_power` (W) is given as an explicit
    model: d = dynamic_power x T.

    `tp` (default 1): the instance is `tp` GPUs in lockstep, as
    sched.pipeline's `tensor_parallel`: one device `<tp>x<device_kind>` of
    `tp x static_power`; `static_power`, `dynamic_power`, `hbm_bandwidth`
    and `prefill_tokens_per_s` are per GPU (each reads its 1/tp of the
    weights and KV cache and computes its 1/tp of a prefill). `pp` > 1 is
    taken by `granularity = "run"` only (a run-level model's theta; the
    device then holds `tp x pp` GPUs).

    `granularity = "run"` instead emits the whole run as one task of kind
    "inference" (for run-level models such as EnergyLens Eq. 4) whose theta
    holds `input_tokens` (sum of prompts), `max_tokens` (the longest
    output), `batch` (max_batch), `tp`, `pp` (degrees, default 1) and
    `requests`, lasting from the first step's start to the last one's end
    under the same time model. The default "iterations" gives the steps.

    Syntax: `sched.serve @name {fields}`; an integer written for a
    floating-point field (`static_power = 120`) is that number.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       F64Attr:$weight_bytes, F64Attr:$kv_bytes_per_token,
                       OptionalAttr<I64Attr>:$layers,
                       ConfinedAttr<I64Attr, [IntPositive]>:$max_batch,
                       StrAttr:$policy,
                       OptionalAttr<ArrayAttr>:$requests,
                       OptionalAttr<I64Attr>:$num_requests,
                       OptionalAttr<F64Attr>:$arrival_rate,
                       OptionalAttr<I64Attr>:$prompt_min,
                       OptionalAttr<I64Attr>:$prompt_max,
                       OptionalAttr<I64Attr>:$output_min,
                       OptionalAttr<I64Attr>:$output_max,
                       DefaultValuedAttr<I64Attr, "1">:$seed,
                       F64Attr:$hbm_bandwidth, F64Attr:$prefill_tokens_per_s,
                       F64Attr:$iteration_overhead,
                       StrAttr:$device_kind, F64Attr:$static_power,
                       OptionalAttr<F64Attr>:$dynamic_power,
                       DefaultValuedAttr<StrAttr, "\"iterations\"">:$granularity,
                       DefaultValuedAttr<ConfinedAttr<I64Attr, [IntPositive]>, "1">:$tp,
                       DefaultValuedAttr<ConfinedAttr<I64Attr, [IntPositive]>, "1">:$pp);
  // `$sym_name attr-dict`, by hand, as sched.pipeline's.
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

#endif // SCHED_OPS_TD
