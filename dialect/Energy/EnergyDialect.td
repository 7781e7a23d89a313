//===- EnergyDialect.td - The energy dialect ---------------*- tablegen -*-===//

#ifndef ENERGY_DIALECT_TD
#define ENERGY_DIALECT_TD

include "mlir/IR/OpBase.td"

def Energy_Dialect : Dialect {
  let name = "energy";
  let cppNamespace = "::energy";
  let summary = "The energy calculus: elements, sequential, parallel and "
                "cross-device composition (arXiv 2607.11087)";
  let description = [{
    The `energy` dialect writes the algebra of the energy calculus as IR.
    An *element* carries a signature (static power `s`, time `T`, dynamic
    energy `d = E - s T` and their standard deviations) measured on a device.
    Elements compose with three region operators that read like the paper's
    expressions: `energy.seq` (sequential, ⊗), `energy.par` (same-device
    parallel, ⊕: static power is drawn once over the makespan) and
    `energy.multi` (cross-device parallel, ⊕multi). Idle elements fill gaps;
    `energy.composite` is a directly measured composite.

    Quantities carry units: power `kW`, `W`, `mW`; time `h`, `min`, `s`,
    `ms`, `us`, `ns`; energy `MWh`, `kWh`, `Wh`, `MJ`, `kJ`, `J`, `mJ`, `uJ`,
    `nJ`. They are stored in SI base units (W, s, J).

    ### Discardable attributes

    The `energy.*` attributes the passes read and write on any op (declared
    in `EnergyDialect.td`, verified by `verifyOperationAttribute`: an
    unknown name, a wrong kind or an out-of-range value is a located
    error).

    | name | kind | what it holds |
    |---|---|---|
    | `energy.thermal` | `DictionaryAttr` | device: lumped RC thermal model `{resistance, capacitance, ambient, leakage?, reference?, throttle_at?, throttle_slope?}` (K/W, J/K, degC, 1/K, degC, degC, 1/K) |
    | `energy.cache` | `DictionaryAttr` | device: `{l2_bytes = C}`, the L2 of the cache entry context |
    | `energy.power_delivery` | `DictionaryAttr` | device: `{energy_per_watt, time_constant}` (J/W, s), the current-draw transient |
    | `energy.capacity` | `DictionaryAttr` | device: capacity of each shared resource, `{hbm = 1.0, ...}` (positive floats; contention, Axiom P5) |
    | `energy.switch` | `SignatureAttr` | device: the cost of one clock switch, `#energy.sig<T = ..., d = ...>` |
    | `energy.demand` | `DictionaryAttr` | element or task: demand on each shared resource, `{hbm = 0.4, ...}` (non-negative floats) |
    | `energy.traffic` | `FloatAttr` | element or task: bytes it moves through L2 (>= 0) |
    | `energy.reuses` | `FlatSymbolRefAttr` | element or task: the earlier element whose data it reuses (with `energy.warm`) |
    | `energy.warm` | `SignatureAttr` | element or task: its signature with the reused data resident |
    | `energy.insensitive` | `UnitAttr` | element or task: no entry context affects it |
    | `energy.thermal_sigs` | `ArrayAttr` | element or task: characterized at entry temperatures, `[{entry_C = ..., sig = #energy.sig<...>}, ...]` |
    | `energy.contention_sigs` | `ArrayAttr` | element: characterized under co-runners, `[{slowdown = ..., sig = #energy.sig<...>}, ...]` |
    | `energy.null_sig` | `SignatureAttr` | written by --energy-propagate-context: the element's null-context signature |
    | `energy.entry_temperature` | `FloatAttr` | written by --energy-propagate-context: the element's entry temperature, degC |
    | `energy.contention_slowdown` | `FloatAttr` | written by --energy-propagate-context: the co-run slowdown (>= 1) |
    | `energy.idle_static` | `FloatAttr` | written by --energy-propagate-context: an idle's realized static power, W (>= 0) |
    | `energy.residency` | `FloatAttr` | written by --energy-propagate-context: cache residency of the reused data, in [0, 1] |
    | `energy.delivery_J` | `FloatAttr` | written by --energy-propagate-context: the power-delivery transient's energy against the element's null (its step from idle), J (negative where the step is smaller) |
    | `energy.bias_bound_J` | `FloatAttr` | written by --energy-reduce: the reduced tree's bias bound, J (>= 0) |
    | `energy.needs_characterization` | `UnitAttr` | written by --energy-reduce: an element or composite to characterize as a whole |
    | `energy.estimate` | `StringAttr` | written by --energy-reduce: where a composite's signature comes from until measured |
    | `energy.total` | `DictionaryAttr` | written by --energy-evaluate: a tree root's totals |
    | `energy.deviation` | `DictionaryAttr` | written by --energy-check-deviation: predicted against measured |
    | `energy.makespan` | `DictionaryAttr` | written by --sched-to-energy on a lowered schedule's root where durations or delays vary: `{T_s, expected_T_s, sigma_T_s, std_error_s?}` (s), the makespan's point value, mean and spread over the schedule's dependencies (Monte Carlo, CALCULUS.md section 6); evaluation takes the mean and spread as the root's E[T] and Var(T) |
    | `energy.output_tokens` | `IntegerAttr` | schedule: decode tokens it produces (>= 0; per-token energy) |
    | `energy.frontier` | `ArrayAttr` | written by --energy-frontier: `[[T, E], ...]` or `[[T, E, lower_bound], ...]` (s, J) |
    | `energy.frontier_method` | `StringAttr` | written by --energy-frontier / --energy-plan: how the frontier was obtained |
    | `energy.frontier_thinning` | `DictionaryAttr` | written by --energy-frontier: points kept and the thinning's error |
    | `energy.plan` | `DictionaryAttr` | written by --energy-plan: the chosen point, its baseline and its certificate |
    | `energy.dvfs` | `OpPointAttr` | task: its planned operating point (written by --energy-plan) |
    | `energy.power_cap` | `OpPointAttr` | written by --energy-power-cap or --energy-plan="choose-power-cap=true": the device's chosen power limit |
    | `energy.power_cap_choice` | `DictionaryAttr` | written by --energy-power-cap or --energy-plan="choose-power-cap=true": the schedule's choice and its cost |
    | `energy.shared_params` | `DictionaryAttr` | written by --energy-fill-signatures: parameters fitted across tasks |
    | `energy.grad` | `DictionaryAttr` | written by --energy-fill-signatures: sensitivities of a task's signature |
    | `energy.option_grads` | `ArrayAttr` | written by --energy-fill-signatures: each option's `energy.grad`, in the operating set's order (--energy-plan gives the task its chosen option's) |
    | `energy.method` | `StringAttr` | written by --energy-fill-signatures: where a task's signature comes from |
    | `energy.db` | `StringAttr` | the signature DB a schedule was filled from |
    | `energy.measured_T` | `FloatAttr` | task: the duration it was measured at, s (> 0; written by energy-translate --import-kineto --db-keys): --energy-fill-signatures scales its key's operating set to it, planned or not |
    | `energy.model` | `StringAttr` | written by energy-translate --import-kineto: the assumed power model (kept by --sched-to-energy on the lowered root, said by --energy-evaluate) |
    | `energy.requests` | `ArrayAttr` | schedule: the request stream for --energy-route, `[[arrival_s, ...], ...]` |
    | `energy.serve_plan` | `DictionaryAttr` | written by --energy-serve-plan on a `sched.serve`; kept on its GPU by --sched-expand and --sched-to-energy, printed by --energy-evaluate |
    | `energy.fleet` | `DictionaryAttr` | schedule: the fleet for --energy-route and --energy-route-simulate, the fleet file's keys (docs/ROUTING.md) |
    | `energy.route` | `DictionaryAttr` | written by --energy-route: the chosen policy and its expected cost |
    | `energy.route_fraction` | `FloatAttr` | written by --energy-route: a model's share of the requests, in [0, 1] |
    | `energy.route_report` | `DictionaryAttr` | written by --energy-route-simulate |
  }];
  let useDefaultAttributePrinterParser = 1;
  let discardableAttrs = (ins
    "::mlir::DictionaryAttr":$thermal,
    "::mlir::DictionaryAttr":$cache,
    "::mlir::DictionaryAttr":$power_delivery,
    "::mlir::DictionaryAttr":$capacity,
    "::energy::SignatureAttr":$switch,
    "::mlir::DictionaryAttr":$demand,
    "::mlir::FloatAttr":$traffic,
    "::mlir::FlatSymbolRefAttr":$reuses,
    "::energy::SignatureAttr":$warm,
    "::mlir::UnitAttr":$insensitive,
    "::mlir::ArrayAttr":$thermal_sigs,
    "::mlir::ArrayAttr":$contention_sigs,
    "::energy::SignatureAttr":$null_sig,
    "::mlir::FloatAttr":$entry_temperature,
    "::mlir::FloatAttr":$contention_slowdown,
    "::mlir::FloatAttr":$idle_static,
    "::mlir::FloatAttr":$residency,
    "::mlir::FloatAttr":$delivery_J,
    "::mlir::FloatAttr":$bias_bound_J,
    "::mlir::UnitAttr":$needs_characterization,
    "::mlir::StringAttr":$estimate,
    "::mlir::DictionaryAttr":$total,
    "::mlir::DictionaryAttr":$deviation,
    "::mlir::DictionaryAttr":$makespan,
    "::mlir::IntegerAttr":$output_tokens,
    "::mlir::ArrayAttr":$frontier,
    "::mlir::StringAttr":$frontier_method,
    "::mlir::DictionaryAttr":$frontier_thinning,
    "::mlir::DictionaryAttr":$plan,
    "::energy::OpPointAttr":$dvfs,
    "::energy::OpPointAttr":$power_cap,
    "::mlir::DictionaryAttr":$power_cap_choice,
    "::mlir::DictionaryAttr":$shared_params,
    "::mlir::DictionaryAttr":$grad,
    "::mlir::ArrayAttr":$option_grads,
    "::mlir::StringAttr":$method,
    "::mlir::StringAttr":$db,
    "::mlir::StringAttr":$model,
    "::mlir::FloatAttr":$measured_T,
    "::mlir::ArrayAttr":$requests,
    "::mlir::DictionaryAttr":$serve_plan,
    "::mlir::DictionaryAttr":$fleet,
    "::mlir::DictionaryAttr":$route,
    "::mlir::FloatAttr":$route_fraction,
    "::mlir::DictionaryAttr":$route_report
  );
  let hasOperationAttrVerify = 1;

}

class Energy_Op<string mnemonic, list<Trait> traits = []>
    : Op<Energy_Dialect, mnemonic, traits>;

#endif // ENERGY_DIALECT_TD
