"""Checks serve-plan's SM clock answer: the clock is one the simulated H100
sets (1980 MHz down to 345 in 15 MHz steps), its p90 meets the SLO, its
energy per token is no more than the cap's alone at the default clocks, and
the cap is one of the candidates considered. With an IR file, the pass's
plan there must hold the same cap and clock."""
import json
import re
import sys

plan = json.load(open(sys.argv[1]))
slo = float(sys.argv[2])
k = plan["sm_clock"]
considered = {c["batch_cap"] for c in plan["candidates"] if c["considered"]}
assert k["batch_cap"] in considered, (k, considered)
assert 345 <= k["sm_clock_mhz"] <= 1980 and (1980 - k["sm_clock_mhz"]) % 15 == 0
assert k["predicted_p90_itl_ms"] <= slo, k
assert k["predicted_J_per_token"] <= plan["predicted_J_per_token"], k
assert abs(k["saving_vs_batch_cap_alone"] -
           (1 - k["predicted_J_per_token"] / plan["predicted_J_per_token"])) < 1e-12
if len(sys.argv) > 3:
    ir = open(sys.argv[3]).read()
    cap = int(re.search(r"max_batch = (\d+)", ir).group(1))
    clock = re.search(r"sm_clock = \{([^}]*)\}", ir).group(1)
    mhz = int(re.search(r"sm_clock_mhz = (\d+)", clock).group(1))
    joint = int(re.search(r"batch_cap = (\d+)", clock).group(1))
    # max_batch stays the default clocks' choice; the joint one is recorded.
    assert cap == plan["batch_cap"], (cap, plan["batch_cap"])
    assert joint == k["batch_cap"] and mhz == k["sm_clock_mhz"], (joint, mhz, k)
    assert 'basis = "SIMULATED' in clock, clock
    print("the pass wrote the same cap and clock")
else:
    print("cap at the default clocks %g" % plan["batch_cap"])
    print("simulated %s: cap %g at %d MHz, p90 within the SLO, no more energy "
          "than the cap alone" % (k["simulated_gpu"], k["batch_cap"],
                                  k["sm_clock_mhz"]))
