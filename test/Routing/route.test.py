"""Checks an `energy-prof route` report against first principles.

Usage: route_check.py FLEET REPORT [CSV]

- every policy's consumption mean and sd are recomputed here from the fleet
  file (per-task moments, mixture / compound-Poisson routing term, the
  shared per-slot factor) and must match the report;
- the Monte Carlo mean of D_T lies within 5 % (plus its CI and 0.1 sigma)
  of the Brownian closed form E[max_{s<=T}(mu s + sigma W_s)] computed here,
  less Siegmund's correction for a discrete walk;
- the variance-aware policy has the matched quality and a D_T no larger
  than the myopic one's (paired CI);
- the CSV, when given, has one row per policy and horizon.
"""
import csv
import json
import math
import sys


def model_moments(m):
    if "energy_J" in m:
        return m["energy_J"]["mean"], m["energy_J"]["sd"]
    e = m["energy_per_token_J"]
    return m.get("prefill_J", 0) + e * m["output_tokens"]["mean"], e * m["output_tokens"]["sd"]


def slot_moments(fleet, p):
    n = fleet["tasks_per_slot"]
    mean = second = idio = shared = 0.0
    for m in fleet["models"]:
        mu, sd = model_moments(m)
        f = p[m["name"]]
        mean += f * mu
        second += f * mu * mu
        idio += f * sd * sd
        shared += f * m.get("shared_sd_J", 0)
    if fleet.get("arrivals") == "poisson":
        routing = n * second
    elif fleet.get("assignment", "random") == "random":
        routing = n * (second - mean * mean)
    else:
        routing = 0
    return n * mean, n * idio + (n * shared) ** 2 + routing


def running_max(mu, sigma, t):
    phi = lambda z: math.exp(-z * z / 2) / math.sqrt(2 * math.pi)
    Phi = lambda z: 0.5 * math.erfc(-z / math.sqrt(2))
    a = mu * math.sqrt(t) / sigma
    third = (sigma * sigma / (2 * mu) * math.erf(a / math.sqrt(2))
             if abs(a) > 1e-9 else sigma * math.sqrt(t) * phi(0))
    return sigma * math.sqrt(t) * phi(a) + mu * t * Phi(a) + third


def main():
    fleet = json.load(open(sys.argv[1]))
    report = json.load(open(sys.argv[2]))
    supply = fleet["supply_J"]
    T = report["horizon_slots"]
    by_name = {p["name"]: p for p in report["policies"]}
    for p in report["policies"]:
        mean, var = slot_moments(fleet, p["fractions"])
        assert abs(p["consumption_J"]["mean"] - mean) <= 1e-9 * mean, (p["name"], mean)
        assert abs(p["consumption_J"]["sd"] - math.sqrt(var)) <= 1e-9 * math.sqrt(var)
        drift = mean - supply
        # net demand per slot, positive = under-supply (docs/ROUTING.md)
        assert abs(p["net_demand_J_per_slot"] - drift) <= 1e-9 * max(1, abs(mean)), (p["name"], p["net_demand_J_per_slot"], drift)
        # Brownian limit less Siegmund's discreteness correction 0.58 sigma
        # (which matters only where D_T stays O(sigma): over-supply).
        expect = running_max(drift, math.sqrt(var), T) - 0.5826 * math.sqrt(var)
        mc = p["monte_carlo"]["aux_J"]
        half = (mc["ci95"][1] - mc["ci95"][0]) / 2
        assert abs(mc["mean"] - expect) <= 0.05 * expect + half + 0.1 * math.sqrt(var), (p["name"], mc["mean"], expect)
        print(f"{p['name']}: D_T {mc['mean']:.0f} J, closed form {expect:.0f} J")
    va, my = by_name["variance-aware"], by_name["myopic"]
    assert abs(va["quality"] - my["quality"]) < 1e-6, (va["quality"], my["quality"])
    diff = va["aux_minus_first_policy_J"]["mean"] - my["aux_minus_first_policy_J"]["mean"]
    assert diff <= 0, diff
    print(f"variance-aware vs myopic at equal quality: {diff:.0f} J "
          f"({diff / my['monte_carlo']['aux_J']['mean'] * 100:.1f} %)")
    if len(sys.argv) > 3:
        rows = list(csv.DictReader(open(sys.argv[3])))
        assert len(rows) == len(report["policies"]) * len(report["policies"][0]["horizons"])
        for r in rows:
            assert float(r["aux_mean_J"]) >= 0
        print(f"{len(rows)} CSV rows")


main()
