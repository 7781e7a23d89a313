// RUN: energy-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{'sched.schedule' op has a dependency cycle: @a -> @b -> @c -> @a}}
sched.schedule @s {
  sched.device @g kind "A100" static 60 W
  sched.task @a on @g stream 0 after [@c] sig <T = 1 ms, d = 1 J>
  sched.task @b on @g stream 1 after [@a] sig <T = 1 ms, d = 1 J>
  sched.task @c on @g stream 2 after [@b] sig <T = 1 ms, d = 1 J>
}

// -----

sched.schedule @s {
  // expected-error @+1 {{'sched.task' op runs on unknown device @nope; declare it with sched.device}}
  sched.task @a on @nope sig <T = 1 ms, d = 1 J>
}

// -----

sched.schedule @s {
  sched.device @g kind "A100" static 60 W
  // expected-error @+1 {{'sched.task' op depends on unknown task @ghost}}
  sched.task @a on @g after [@ghost] sig <T = 1 ms, d = 1 J>
}

// -----

sched.schedule @s {
  sched.device @g kind "A100" static 60 W
  // expected-error @+1 {{'sched.collective' op runs on unknown device @h; declare it with sched.device}}
  sched.collective @ar on [@g, @h] kind "allreduce" sig <T = 1 ms, d = 1 J>
}

// -----

sched.schedule @s {
  sched.device @g kind "A100" static 60 W
  // expected-note @+1 {{the other task}}
  sched.task @a on @g start 0 s sig <T = 10 ms, d = 1 J>
  // expected-error @+1 {{'sched.task' op @b overlaps @a on stream 0 of @g: it starts at 5 ms, before the other ends at 10 ms}}
  sched.task @b on @g start 5 ms sig <T = 10 ms, d = 1 J>
}

// -----

sched.schedule @s {
  sched.device @g kind "A100" static 60 W
  // Different streams may overlap.
  sched.task @a on @g start 0 s sig <T = 10 ms, d = 1 J>
  sched.task @b on @g stream 1 start 5 ms sig <T = 10 ms, d = 1 J>
  // expected-error @+1 {{'sched.collective' op lists device @g twice}}
  sched.collective @ar on [@g, @g] sig <T = 1 ms, d = 1 J>
}

// -----

sched.schedule @s {
  sched.device @g kind "A100" static 60 W
  sched.task @a on @g sig <T = 1 ms, d = 1 J>
  // expected-error @+1 {{'sched.task' op `lag` needs start-to-start dependencies (`with`)}}
  sched.task @b on @g after [@a] lag 2 ms sig <T = 1 ms, d = 1 J>
}

// -----

sched.schedule @s {
  sched.device @g kind "A100" static 60 W
  sched.task @a on @g sig <T = 1 ms, d = 1 J>
  // expected-error @+1 {{'sched.task' op depends on @g, which is a device, not a task}}
  sched.task @b on @g after [@g] sig <T = 1 ms, d = 1 J>
}

// -----

sched.schedule @s {
  // expected-error @+1 {{'sched.pipeline' op unknown schedule "2f2b"; expected "gpipe", "1f1b", "interleaved-1f1b" or "zb-h1"}}
  sched.pipeline @p {stages = 2, microbatches = 4, schedule = "2f2b", device_kind = "A40", static_power = 65.0, forward = #energy.sig<T = 1 ms, d = 2 J>, backward = #energy.sig<T = 2 ms, d = 4 J>}
}

// -----

sched.schedule @s {
  // expected-error @+1 {{'sched.pipeline' op interleaved-1f1b needs microbatches (3) to be a multiple of stages (2)}}
  sched.pipeline @p {stages = 2, microbatches = 3, chunks = 2, schedule = "interleaved-1f1b", device_kind = "A40", static_power = 65.0, forward = #energy.sig<T = 1 ms, d = 2 J>, backward = #energy.sig<T = 2 ms, d = 4 J>}
}

// -----

sched.schedule @s {
  // expected-error @+1 {{'sched.pipeline' op `forward` has 3 entries; need one per virtual stage (2)}}
  sched.pipeline @p {stages = 2, microbatches = 4, schedule = "1f1b", device_kind = "A40", static_power = 65.0, forward = [#energy.sig<T = 1 ms, d = 2 J>, #energy.sig<T = 1 ms, d = 2 J>, #energy.sig<T = 1 ms, d = 2 J>], backward = #energy.sig<T = 2 ms, d = 4 J>}
}

// -----

sched.schedule @s {
  // expected-error @+1 {{'sched.pipeline' op zb-h1 needs `weight` signatures (the W passes)}}
  sched.pipeline @p {stages = 2, microbatches = 4, schedule = "zb-h1", device_kind = "A40", static_power = 65.0, forward = #energy.sig<T = 1 ms, d = 2 J>, backward = #energy.sig<T = 2 ms, d = 4 J>}
}

// -----

sched.schedule @s {
  // expected-error @+1 {{'sched.pipeline' op `weight` (the W passes) is for schedule "zb-h1"; "gpipe" has none (its backward signatures include them)}}
  sched.pipeline @p {stages = 2, microbatches = 4, schedule = "gpipe", device_kind = "A40", static_power = 65.0, forward = #energy.sig<T = 1 ms, d = 2 J>, backward = #energy.sig<T = 2 ms, d = 4 J>, weight = #energy.sig<T = 5 ms, d = 1 J>}
}

// -----

sched.schedule @s {
  // expected-error @+1 {{'sched.pipeline' op data_parallel > 1 needs an `allreduce` signature}}
  sched.pipeline @p {stages = 2, microbatches = 4, schedule = "1f1b", data_parallel = 2, device_kind = "A40", static_power = 65.0, forward = #energy.sig<T = 1 ms, d = 2 J>, backward = #energy.sig<T = 2 ms, d = 4 J>}
}

// -----

sched.schedule @s {
  // expected-error @+1 {{'sched.pipeline' op `backward_options` must be an operating set (a non-empty array of #energy.option) or an array of them, one per virtual stage}}
  sched.pipeline @p {stages = 2, microbatches = 4, schedule = "1f1b", device_kind = "A40", static_power = 65.0, forward = #energy.sig<T = 1 ms, d = 2 J>, backward_options = [#energy.sig<T = 2 ms, d = 4 J>]}
}

// -----

sched.schedule @s {
  sched.device @g kind "A100" static 60 W
  sched.device @h kind "A100" static 60 W
  // expected-error @+1 {{'sched.collective' op has 1 durations for 2 devices}}
  sched.collective @c on [@g, @h] durations [1 ms]
}

// -----

sched.schedule @s {
  sched.device @g kind "A100" static 60 W
  // expected-error @+1 {{'sched.task' op measured duration 2 ms disagrees with its signature's T = 1 ms}}
  sched.task @a on @g for 2 ms sig <T = 1 ms, d = 1 J>
}

// -----

sched.schedule @s {
  sched.device @g kind "A100" static 60 W
  // expected-error @+1 {{'sched.task' op starts at 1 ms, before its release time 2 ms}}
  sched.task @a on @g release 2 ms start 1 ms sig <T = 1 ms, d = 1 J>
}

// -----

sched.schedule @s {
  sched.device @g kind "A100" static 60 W
  // expected-error @+1 {{'sched.task' op release time must be finite and non-negative; got -2 ms}}
  sched.task @a on @g release -2 ms sig <T = 1 ms, d = 1 J>
}

// -----

sched.schedule @s {
  sched.device @g kind "A100" static 60 W
  // expected-error @+1 {{'sched.task' op start time must be finite and non-negative; got -1 ms}}
  sched.task @a on @g start -1 ms sig <T = 1 ms, d = 1 J>
}

// -----

sched.schedule @s {
  sched.device @g kind "A100" static 60 W
  // expected-error @+1 {{'sched.task' op duration must be finite and non-negative; got -3 us}}
  sched.task @a on @g for -3 us
}

// -----

sched.schedule @s {
  sched.device @g kind "A100" static 60 W
  // `start` is a property, not an attribute of the dictionary.
  // expected-error @+1 {{'sched.task' op has an attribute 'start': write `start <time>` after the workload parameters instead}}
  sched.task @a on @g for 1 ms attributes {start = 1.0 : f64}
}

// -----

sched.schedule @s {
  sched.device @g kind "A100" static 60 W
  // expected-error @+1 {{'sched.task' op has an attribute 'duration': write `for <time>` after the workload parameters instead}}
  sched.task @a on @g start 1 ms attributes {duration = 1.0 : f64}
}

// -----

sched.schedule @s {
  sched.device @g kind "A100" static 60 W
  // The generic form holds a time property as an f64 or `none`.
  // expected-error @+1 {{expected an f64 time in seconds or `none`; got "soon"}}
  "sched.task"() <{sym_name = "a", device = @g, start = "soon"}> : () -> ()
}

// -----

sched.schedule @s {
  // expected-error @+1 {{'sched.pipeline' op needs `forward` signatures, `forward_options` or `forward_db` keys}}
  sched.pipeline @p {stages = 2, microbatches = 2, schedule = "1f1b", device_kind = "A100", static_power = 60.0, backward_db = "b"}
}

// -----

sched.schedule @s {
  // expected-error @+1 {{'sched.pipeline' op `forward_db` has 3 entries; need one per virtual stage (2)}}
  sched.pipeline @p {stages = 2, microbatches = 2, schedule = "1f1b", device_kind = "A100", static_power = 60.0, forward_db = ["a", "b", "c"], backward_db = "b"}
}

// -----

sched.schedule @s {
  // expected-error @+1 {{'sched.pipeline' op `backward_db` must be a non-empty key or an array of them, one per virtual stage}}
  sched.pipeline @p {stages = 2, microbatches = 2, schedule = "1f1b", device_kind = "A100", static_power = 60.0, forward_db = "f", backward_db = ["b", ""]}
}

// -----

// A zero-length task occupies no time; the overlap is with @a.
sched.schedule @long {
  sched.device @g kind "A100" static 60 W
  // expected-note @+1 {{the other task}}
  sched.task @a on @g start 0 ms for 10 ms sig <T = 10 ms, d = 1 J>
  sched.task @b on @g start 0 ms for 0 ms sig <T = 0 ms, d = 1 J>
  // expected-error @+1 {{'sched.task' op @c overlaps @a on stream 0 of @g: it starts at 3 ms, before the other ends at 10 ms}}
  sched.task @c on @g start 3 ms for 1 ms sig <T = 1 ms, d = 1 J>
}

// -----

// Counts are read signed: a negative one does not wrap into 2^64 - 2.
sched.schedule @s {
  // expected-error @+1 {{'sched.pipeline' op tensor_parallel must be between 1 and 2^32 - 1; got -2}}
  sched.pipeline @p {stages = 2, microbatches = 4, schedule = "1f1b", tensor_parallel = -2, device_kind = "A40", static_power = 65.0, forward = #energy.sig<T = 1 ms, d = 2 J>, backward = #energy.sig<T = 2 ms, d = 4 J>}
}

// -----

// Nor does one past 32 bits (2^32 + 1 would run as 1).
sched.schedule @s {
  // expected-error @+1 {{'sched.pipeline' op tensor_parallel must be between 1 and 2^32 - 1; got 4294967297}}
  sched.pipeline @p {stages = 2, microbatches = 4, schedule = "1f1b", tensor_parallel = 4294967297, device_kind = "A40", static_power = 65.0, forward = #energy.sig<T = 1 ms, d = 2 J>, backward = #energy.sig<T = 2 ms, d = 4 J>}
}

// -----

sched.schedule @s {
  // expected-error @+1 {{'sched.pipeline' op data_parallel must be between 1 and 2^32 - 1; got -1}}
  sched.pipeline @p {stages = 2, microbatches = 4, schedule = "1f1b", data_parallel = -1, device_kind = "A40", static_power = 65.0, forward = #energy.sig<T = 1 ms, d = 2 J>, backward = #energy.sig<T = 2 ms, d = 4 J>, allreduce = #energy.sig<T = 1 ms, d = 1 J>}
}

// -----

// A generator's misspelt parameter is refused, not read as its default.
sched.schedule @s {
  // expected-error@+1 {{'sched.pipeline' op has an unknown attribute 'p2p_latncy' (its attributes: allreduce, allreduce_lag, backward, backward_db, backward_options, chunks, data_parallel, device_kind, forward, forward_db, forward_options, microbatches, p2p_latency, p2p_latency_sigma, schedule, source, stages, static_power, sync, sync_sigma, tensor_parallel, weight)}}
  sched.pipeline @train {stages = 2, microbatches = 3, schedule = "1f1b", device_kind = "A40", static_power = 65.0, forward = #energy.sig<T = 10 ms, d = 2 J>, backward = #energy.sig<T = 20 ms, d = 5 J>, p2p_latncy = 0.001}
}

// -----

sched.schedule @s {
  // expected-error@+1 {{'sched.serve' op has an unknown attribute 'dynamic_powr'}}
  sched.serve @chat {weight_bytes = 1.5e10, kv_bytes_per_token = 131072.0, layers = 28, max_batch = 16, policy = "continuous", num_requests = 4, arrival_rate = 4.0, prompt_min = 128, prompt_max = 2048, output_min = 16, output_max = 512, seed = 1, hbm_bandwidth = 3.35e12, prefill_tokens_per_s = 20000.0, iteration_overhead = 0.002, device_kind = "H100-SXM5", static_power = 100.0, dynamic_powr = 300.0}
}

// -----

// A task's own static power has no meaning in a schedule (the device's is
// charged over the whole makespan): refused, not ignored. The device's own
// value is accepted.
sched.schedule @s {
  sched.device @g kind "A100" static 10 W
  // expected-error @+1 {{'sched.task' op its signature gives s = 5 W, but a schedule charges its static power (10 W here) over the whole makespan; drop `s`, or set it on the device}}
  sched.task @a on @g sig <s = 5 W, T = 2 s, d = 6 J>
}

// -----

sched.schedule @s {
  sched.device @g kind "A100" static 10 W
  sched.task @b on @g sig <s = 10 W, T = 2 s, d = 6 J>
  // expected-error @+1 {{'sched.task' op option #1 gives s = 5 W}}
  sched.task @a on @g sig <T = 2 s, d = 6 J> options [#energy.option<sm_mhz = 1400, T = 1 s, d = 8 J>, #energy.option<sm_mhz = 1000, s = 5 W, T = 2 s, d = 6 J>]
}

// -----

// Schedule ops outside a schedule were accepted, and every sched pass then
// passed over them without a word.
// expected-error @+1 {{'sched.device' op expects parent op 'sched.schedule'}}
sched.device @g kind "A100" static 10 W

// -----

sched.schedule @s {
  sched.device @g kind "A100" static 10 W
  // expected-error @+1 {{'sched.task' op options #0 and #1 have the same operating point #energy.op_point<sm_mhz = 1000>; one option per operating point}}
  sched.task @a on @g sig <T = 2 s, d = 6 J> options [#energy.option<sm_mhz = 1000, T = 2 s, d = 6 J>, #energy.option<sm_mhz = 1000, T = 1 s, d = 8 J>]
}

// -----

// The same rules on a pipeline's signatures and operating sets (their tasks
// are generated: the error names the pipeline), a collective's signature
// (its devices' static powers together) and a device's clock-switch cost
// (a generated task on that device).
sched.schedule @s {
  // expected-error @+1 {{'sched.pipeline' op `forward_options` options #0 and #1 have the same operating point #energy.op_point<sm_mhz = 1740>}}
  sched.pipeline @p {stages = 1, microbatches = 1, schedule = "1f1b", device_kind = "A40", static_power = 65.0, forward_options = [#energy.option<sm_mhz = 1740, T = 10 ms, d = 5 J>, #energy.option<sm_mhz = 1740, T = 14 ms, d = 3 J>], backward = #energy.sig<T = 20 ms, d = 9 J>}
}

// -----

sched.schedule @s {
  // expected-error @+1 {{'sched.pipeline' op `forward` gives s = 100 W, but a schedule charges its static power (65 W here) over the whole makespan; drop `s` (the pipeline's static_power is charged)}}
  sched.pipeline @p {stages = 1, microbatches = 1, schedule = "1f1b", device_kind = "A40", static_power = 65.0, forward = #energy.sig<T = 10 ms, d = 5 J, s = 100 W>, backward = #energy.sig<T = 20 ms, d = 9 J>}
}

// -----

sched.schedule @s {
  sched.device @g0 kind "A100" static 60 W
  sched.device @g1 kind "A100" static 70 W
  sched.collective @ok on [@g0, @g1] kind "sync" sig <T = 3 ms, d = 0 J, s = 130 W>
  // expected-error @+1 {{'sched.collective' op its signature gives s = 500 W, but a schedule charges its static power (130 W here)}}
  sched.collective @c on [@g0, @g1] kind "sync" sig <T = 3 ms, d = 0 J, s = 500 W>
}

// -----

sched.schedule @s {
  // expected-error @+1 {{'sched.device' op its clock switch (energy.switch) gives s = 200 W, but a schedule charges its static power (10 W here)}}
  sched.device @g kind "X" static 10 W {energy.switch = #energy.sig<T = 1 ms, d = 50 mJ, s = 200 W>}
}

// -----

sched.schedule @s {
  sched.device @g0 kind "A100" static 60 W
  sched.device @g1 kind "A100" static 60 W
  sched.task @b on @g1 sig <T = 20 us, d = 2 mJ>
  // expected-error @+1 {{'sched.collective' op per-device `starts`, `energies`, `streams` or `part_after` need per-device `durations`}}
  sched.collective @c on [@g0, @g1] part_after [[], [@b]] sig <T = 1 ms, d = 1 J>
}

// -----

sched.schedule @s {
  sched.device @g0 kind "A100" static 60 W
  sched.device @g1 kind "A100" static 60 W
  sched.task @b on @g1 sig <T = 20 us, d = 2 mJ>
  // expected-error @+1 {{'sched.collective' op has 1 part_after lists for 2 devices}}
  sched.collective @c on [@g0, @g1] part_after [[@b]] durations [30 us, 15 us]
}

// -----

sched.schedule @s {
  sched.device @g0 kind "A100" static 60 W
  sched.device @g1 kind "A100" static 60 W
  sched.task @b on @g1 sig <T = 20 us, d = 2 mJ>
  // expected-error @+1 {{'sched.collective' op a `part_after` list names @b twice}}
  sched.collective @c on [@g0, @g1] part_after [[], [@b, @b]] durations [30 us, 15 us]
}

// -----

sched.schedule @s {
  sched.device @g0 kind "A100" static 60 W
  sched.device @g1 kind "A100" static 60 W
  // expected-error @+1 {{'sched.collective' op depends on unknown task @nope}}
  sched.collective @c on [@g0, @g1] part_after [[@nope], []] durations [30 us, 15 us] energies [3 mJ, 1.5 mJ]
}

// -----

// One gradient per option (the fill's energy.option_grads).
sched.schedule @s {
  sched.device @g kind "H100" static 100 W
  // expected-error @+1 {{'sched.task' op has 1 energy.option_grads for 2 option(s): one gradient per option}}
  sched.task @t on @g sig <T = 1 ms, d = 1 mJ> options [#energy.option<sm_mhz = 1980, T = 1 ms, d = 1 mJ>, #energy.option<sm_mhz = 210, T = 2 ms, d = 0.5 mJ>] attributes {energy.option_grads = [{m = array<f64: 1.0, 2.0>}]}
}

// -----

sched.schedule @s {
  sched.device @g kind "H100" static 100 W
  // expected-error @+1 {{'energy.option_grads' entry 0 must be a dictionary (an energy.grad)}}
  sched.task @t on @g sig <T = 1 ms, d = 1 mJ> options [#energy.option<sm_mhz = 1980, T = 1 ms, d = 1 mJ>] attributes {energy.option_grads = [1.0]}
}

// -----

// Empty workloads and arrivals in another unit.
sched.schedule @s {
  // expected-error @+1 {{has no requests (`requests = []`): an empty workload}}
  sched.serve @chat {weight_bytes = 1.5e10, kv_bytes_per_token = 131072.0, max_batch = 4, policy = "continuous", requests = [], hbm_bandwidth = 3.0e12, prefill_tokens_per_s = 10000.0, iteration_overhead = 0.001, device_kind = "H100-SXM5", static_power = 100.0}
}

// -----

sched.schedule @s {
  // expected-error @+1 {{request #1: an arrival at 1.0e+17 s is past 1e9 s (31 years)}}
  sched.serve @chat {weight_bytes = 1.5e10, kv_bytes_per_token = 131072.0, max_batch = 4, policy = "continuous", requests = [[0.0, 10, 2], [1.0e17, 10, 2]], hbm_bandwidth = 3.0e12, prefill_tokens_per_s = 10000.0, iteration_overhead = 0.001, device_kind = "H100-SXM5", static_power = 100.0}
}

// -----

sched.schedule @s {
  // expected-error @+1 {{num_requests = 0: an empty workload}}
  sched.serve @chat {weight_bytes = 1.5e10, kv_bytes_per_token = 131072.0, max_batch = 4, policy = "continuous", num_requests = 0, arrival_rate = 1.0, prompt_min = 1, prompt_max = 8, output_min = 1, output_max = 4, hbm_bandwidth = 3.0e12, prefill_tokens_per_s = 10000.0, iteration_overhead = 0.001, device_kind = "H100-SXM5", static_power = 100.0}
}

// -----

sched.schedule @s {
  // expected-error @+1 {{num_requests / arrival_rate = 9.999999999999999e+300 s: the arrivals would run past 1e9 s (31 years)}}
  sched.serve @chat {weight_bytes = 1.5e10, kv_bytes_per_token = 131072.0, max_batch = 4, policy = "continuous", num_requests = 10, arrival_rate = 1.0e-300, prompt_min = 1, prompt_max = 8, output_min = 1, output_max = 4, hbm_bandwidth = 3.0e12, prefill_tokens_per_s = 10000.0, iteration_overhead = 0.001, device_kind = "H100-SXM5", static_power = 100.0}
}
