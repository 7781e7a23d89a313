"""Checks serve-plan's SM clock answer: the clock is one the simulated GPU
sets (its highest down to 345 MHz in 15 MHz steps), its p90 meets the SLO,
its energy per token -- the cap's, from the answer's candidates, times the
energy ratio by either account of the power the model misses -- is no
more than the cap's alone at the default clocks by either, and the cap is
one of the candidates considered. The power limit beside it is the
measured mean power per GPU at that cap -- the file's own avg_power_watts,
read here -- times the (higher) energy ratio over the time ratio,
within the GPU's settable limits; none at the highest clock. With an IR
file, the pass's plan there must hold the same cap, clock and power limit.

    serve-plan-clock.test.py PLAN SLO_MS MEASUREMENTS MODEL [IR]"""
import json
import re
import sys

plan = json.load(open(sys.argv[1]))
slo = float(sys.argv[2])
measurements = json.load(open(sys.argv[3]))
model = sys.argv[4]
k = plan["sm_clock"]
gpu = "B200" if k["simulated_gpu"] == "B200" else "H100"
highest, limits = 1980, {"H100": [200, 700], "B200": [200, 1000]}[gpu]
considered = {c["batch_cap"]: c for c in plan["candidates"] if c["considered"]}
assert k["batch_cap"] in considered, (k, considered)
assert 345 <= k["sm_clock_mhz"] <= highest
assert (highest - k["sm_clock_mhz"]) % 15 == 0, k
assert k["predicted_p90_itl_ms"] <= slo, k
cap_e = considered[k["batch_cap"]]["J_per_token"]
for key, ratio in (("predicted_J_per_token", "energy_vs_highest_clock"),
                   ("predicted_J_per_token_low", "energy_vs_highest_clock_low")):
    assert abs(k[key] - cap_e * k[ratio]) <= 1e-9 * cap_e, (k, cap_e)
assert 0 < k["predicted_J_per_token_low"] <= k["predicted_J_per_token"], k
assert k["predicted_J_per_token"] <= plan["predicted_J_per_token"], k
for key, e in (("saving_vs_batch_cap_alone", "predicted_J_per_token"),
               ("saving_vs_batch_cap_alone_high", "predicted_J_per_token_low")):
    assert abs(k[key] - (1 - k[e] / plan["predicted_J_per_token"])) < 1e-12, k
rows = [c for c in measurements["configurations"]
        if c["model_id"] == model and c["gpu_model"].startswith(gpu)
        and c["max_num_seqs"] == k["batch_cap"]]
assert len(rows) == 1, rows
per_gpu = rows[0]["avg_power_watts"] / rows[0]["num_gpus"]
expected = per_gpu * k["energy_vs_highest_clock"] / k["time_vs_highest_clock"]
assert abs(k["mean_power_per_gpu_W"] - expected) <= 1e-9 * expected, (k, expected)
assert k["power_limit_range_W"] == limits, k
if k["sm_clock_mhz"] < highest:
    assert k["power_limit_W"] == k["mean_power_per_gpu_W"], k
    assert limits[0] <= k["power_limit_W"] < per_gpu, (k, per_gpu)
    assert k["power_limit_basis"].startswith("SIMULATED"), k
else:
    assert k["power_limit_W"] is None, k
    assert k["energy_vs_highest_clock"] == 1 and k["saving_vs_batch_cap_alone"] == 0, k
if len(sys.argv) > 5:
    ir = open(sys.argv[5]).read()
    cap = int(re.search(r"max_batch = (\d+)", ir).group(1))
    clock = re.search(r"sm_clock = \{([^}]*)\}", ir).group(1)
    mhz = int(re.search(r"sm_clock_mhz = (\d+)", clock).group(1))
    joint = int(re.search(r"batch_cap = (\d+)", clock).group(1))
    # max_batch stays the default clocks' choice; the joint one is recorded.
    assert cap == plan["batch_cap"], (cap, plan["batch_cap"])
    assert joint == k["batch_cap"] and mhz == k["sm_clock_mhz"], (joint, mhz, k)
    assert 'basis = "SIMULATED' in clock, clock
    limit = float(re.search(r"power_limit_W = ([-+0-9.e]+)", clock).group(1))
    assert abs(limit - k["power_limit_W"]) <= 1e-6 * limit, (limit, k)
    print("the pass wrote the same cap, clock and power limit")
else:
    print("cap at the default clocks %g" % plan["batch_cap"])
    print("simulated %s: cap %g at %d MHz, p90 within the SLO, no more energy "
          "than the cap alone by either account" % (
              k["simulated_gpu"], k["batch_cap"], k["sm_clock_mhz"]))
    if k["power_limit_W"] is None:
        print("no power limit: the clock is the highest")
    else:
        print("power limit: the file's mean power at the cap scaled by the "
              "energy and time ratios, settable")
