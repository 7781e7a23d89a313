"""Checks serve-plan's SM clock answer: the clock is one the simulated H100
sets (1980 MHz down to 345 in 15 MHz steps), its p90 meets the SLO, its
energy per token is no more than the cap's alone at the default clocks, and
the cap is one of the candidates considered. The power limit beside it is
the measured mean power per GPU at that cap -- the file's own
avg_power_watts, read here -- times the model's energy and time ratios,
within the H100's settable 200-700 W. With an IR file, the pass's plan
there must hold the same cap, clock and power limit."""
import json
import re
import sys

plan = json.load(open(sys.argv[1]))
slo = float(sys.argv[2])
measurements = json.load(open(sys.argv[3]))
k = plan["sm_clock"]
considered = {c["batch_cap"] for c in plan["candidates"] if c["considered"]}
assert k["batch_cap"] in considered, (k, considered)
assert 345 <= k["sm_clock_mhz"] <= 1980 and (1980 - k["sm_clock_mhz"]) % 15 == 0
assert k["predicted_p90_itl_ms"] <= slo, k
assert k["predicted_J_per_token"] <= plan["predicted_J_per_token"], k
assert abs(k["saving_vs_batch_cap_alone"] -
           (1 - k["predicted_J_per_token"] / plan["predicted_J_per_token"])) < 1e-12
rows = [c for c in measurements["configurations"]
        if c["model_id"] == "meta-llama/Llama-3.1-8B-Instruct"
        and c["gpu_model"].startswith("H100")
        and c["max_num_seqs"] == k["batch_cap"]]
assert len(rows) == 1, rows
per_gpu = rows[0]["avg_power_watts"] / rows[0]["num_gpus"]
expected = per_gpu * k["energy_vs_highest_clock"] / k["time_vs_highest_clock"]
assert abs(k["mean_power_per_gpu_W"] - expected) <= 1e-9 * expected, (k, expected)
assert k["power_limit_range_W"] == [200, 700], k
assert k["power_limit_W"] == k["mean_power_per_gpu_W"], k
assert 200 <= k["power_limit_W"] < per_gpu, (k, per_gpu)
assert k["power_limit_basis"].startswith("SIMULATED"), k
if len(sys.argv) > 4:
    ir = open(sys.argv[4]).read()
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
          "than the cap alone" % (k["simulated_gpu"], k["batch_cap"],
                                  k["sm_clock_mhz"]))
    print("power limit: the file's mean power at the cap scaled by the "
          "model's ratios, settable")
