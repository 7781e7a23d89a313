"""Edges of a profile across power limits (energy-rt-profile-power-limits
.test): every entry of a shard names the limit it ran under, and its mean
power s + d / T fits under it (3 %: the simulator's noise) --
  reinit: er_init again in the same process starts the sweep afresh (the
          first session's last limit is not taken for the new one's);
  signal: a handled signal (the guard restores the default limit before the
          program's handler runs) in a recorded iteration: the limit is set
          again, and no run at the default limit enters the profile;
  gridsignal: the same across limits and clocks (ENERGY_RT_PROFILE_CLOCKS
          too), the signal in the first limit's second clock, which has no
          settling iteration of its own: each entry names its clock too;
  nochoice: with ENERGY_RT_POWER_LIMIT_CHOICE and one limit whose every
          recorded iteration a handled signal disturbed, no limit can be
          chosen: er_step says so, and the default limit is back (read from
          the simulator's mirror, ENERGY_RT_SIM_STATE).
Usage: profile_caps_edges.py reinit|signal|gridsignal|nochoice OUT_DIR (the environment names
the limits; the entries' limits are printed)."""
import ctypes
import json
import os
import signal
import sys

import energy_rt

mode, out = sys.argv[1], sys.argv[2]
lib = energy_rt._lib


def check(rc):
    if rc:
        raise SystemExit(lib.er_last_error().decode())


def iterations(n, signal_at=None):
    for i in range(n):
        if i == signal_at:
            os.kill(os.getpid(), signal.SIGUSR1)
        check(lib.er_begin(b"fwd"))
        check(lib.er_sim_run(ctypes.c_double(5e12), ctypes.c_double(1e9)))
        check(lib.er_end(b"fwd"))
        check(lib.er_step())


shards = []
if mode == "nochoice":
    signal.signal(signal.SIGUSR1, lambda *a: None)
    check(lib.er_init(b"sim:a100"))
    iterations(1)
    os.kill(os.getpid(), signal.SIGUSR1)
    check(lib.er_begin(b"fwd"))
    check(lib.er_sim_run(ctypes.c_double(5e12), ctypes.c_double(1e9)))
    check(lib.er_end(b"fwd"))
    assert lib.er_step() != 0, "a choice without a whole window"
    print(lib.er_last_error().decode())
    print("limit now %s W" % open(os.environ["ENERGY_RT_SIM_STATE"] +
                                  ".power").read().strip())
    sys.exit(0)
if mode == "reinit":
    check(lib.er_init(b"sim:a100"))
    iterations(2)
    check(lib.er_flush(os.path.join(out, "first.json").encode()))
    check(lib.er_init(b"sim:a100"))
    iterations(1 + 2 * 2)
    shards.append(os.path.join(out, "reinit.json"))
elif mode == "gridsignal":
    # Warm-up 1, then per limit 1 settling + 2 clocks x 2 recorded: the
    # first limit's second clock records iterations 4 and 5.
    signal.signal(signal.SIGUSR1, lambda *a: None)
    check(lib.er_init(b"sim:a100"))
    iterations(1 + 2 * (1 + 2 * 2), signal_at=4)
    shards.append(os.path.join(out, "gridsignal.json"))
else:
    signal.signal(signal.SIGUSR1, lambda *a: None)
    check(lib.er_init(b"sim:a100"))
    iterations(1 + 2 * 3, signal_at=3)
    shards.append(os.path.join(out, "signal.json"))
check(lib.er_flush(shards[-1].encode()))
for e in json.load(open(shards[-1]))["entries"]:
    cap = e.get("context", {}).get("power_limit_W")
    power = e["s_W"] + e["d_J"] / e["T_s"]
    assert cap is not None, ("an entry at no limit", e)
    assert power <= cap * 1.03, ("drew more than its limit", cap, power)
    if mode == "gridsignal":
        assert e.get("sm_mhz") in (1410, 1005), ("an entry at no clock", e)
        print("%s: %g W, %d MHz, %d runs" % (e["key"], cap, e["sm_mhz"],
                                            e["runs"]))
    else:
        print("%s: %g W, %d runs" % (e["key"], cap, e["runs"]))
print("edges ok")
