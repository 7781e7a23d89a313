// RUN: energy-opt %s -split-input-file -verify-diagnostics

sched.schedule @s {
  sched.device @d kind "A100" static 60 W
  // expected-error @+1 {{`delay` needs finish-to-start dependencies (`after`)}}
  sched.task @a on @d delay 5 ms sig <T = 1 ms, d = 1 J>
}

// -----

sched.schedule @s {
  sched.device @d kind "A100" static 60 W
  sched.task @a on @d sig <T = 1 ms, d = 1 J>
  // expected-error @+1 {{delay must be finite and non-negative; got -5 ms}}
  sched.task @b on @d after [@a] delay -5 ms sig <T = 1 ms, d = 1 J>
}

// -----

sched.schedule @p {
  // expected-error @+1 {{p2p_latency must be finite and non-negative}}
  sched.pipeline @train {stages = 2, microbatches = 2, schedule = "gpipe",
      device_kind = "A100-SXM4", static_power = 60.0, p2p_latency = -1.0,
      forward = #energy.sig<T = 10 ms, d = 2 J>,
      backward = #energy.sig<T = 20 ms, d = 4 J>}
}

// -----

sched.schedule @p {
  // expected-error @+1 {{sync must be finite and non-negative}}
  sched.pipeline @train {stages = 2, microbatches = 2, schedule = "gpipe",
      device_kind = "A100-SXM4", static_power = 60.0, sync = -1.0,
      forward = #energy.sig<T = 10 ms, d = 2 J>,
      backward = #energy.sig<T = 20 ms, d = 4 J>}
}

// -----

sched.schedule @p {
  // expected-error @+1 {{sync must be finite and non-negative}}
  sched.pipeline @train {stages = 2, microbatches = 2, schedule = "gpipe",
      device_kind = "A100-SXM4", static_power = 60.0,
      sync = 0x7FF8000000000000 : f64,
      forward = #energy.sig<T = 10 ms, d = 2 J>,
      backward = #energy.sig<T = 20 ms, d = 4 J>}
}
