"""Recomputes --energy-route-simulate's energies=evaluated per-task energies
from first principles and compares them with the pass's report.

From the expanded schedule's printed text: every prefill/decode task's
energy s*T + d (s: the signature's, else its device's static power), summed
per endpoint device with the prompt tokens (prefill `tokens`) and output
tokens (decode `batch`) they process; the request stream's prompt and
output lengths; a task's energy is a P + b L (a = prefill J per prompt
token, b = decode J per output token), so its mean is a E[P] + b E[L] and
its variance the variance of a P + b L over the stream, computed here
directly per request (not from the moments formula the pass uses).

usage: route-evaluated.test.py EXPANDED.mlir REPORT.mlir
"""
import math
import re
import sys

UNITS = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9,
         "J": 1.0, "mJ": 1e-3, "uJ": 1e-6, "kJ": 1e3, "MJ": 1e6,
         "W": 1.0, "mW": 1e-3, "kW": 1e3}


def quantity(text, key):
    m = re.search(r"\b" + key + r" = ([0-9.eE+-]+) ([a-zA-Z]+)", text)
    return float(m.group(1)) * UNITS[m.group(2)] if m else None


expanded = open(sys.argv[1]).read()
report = open(sys.argv[2]).read()

static = {m.group(1): float(m.group(2)) * UNITS[m.group(3)] for m in re.finditer(
    r"sched\.device @(\w+) kind \"[^\"]*\" static ([0-9.eE+-]+) (\w+)", expanded)}
per_device = {}
for line in expanded.splitlines():
    m = re.search(r"sched\.task @\w+ on @(\w+) .*kind \"(prefill|decode)\" \{(.*?)\} sig <(.*?)>", line)
    if not m:
        continue
    dev, kind, theta, sig = m.groups()
    s = quantity(sig, "s")
    energy = (static[dev] if s is None else s) * quantity(sig, "T") + quantity(sig, "d")
    acc = per_device.setdefault(dev, [0.0, 0, 0.0, 0])
    if kind == "prefill":
        acc[0] += energy
        acc[1] += int(re.search(r"tokens = (\d+)", theta).group(1))
    else:
        acc[2] += energy
        acc[3] += int(re.search(r"batch = (\d+)", theta).group(1))

stream_text = re.search(r"energy\.requests = \[(.*?)\]\]", expanded).group(1)
stream = [(int(p), int(o)) for p, o in re.findall(r"\[[0-9.eE+-]+, (\d+), (\d+)", stream_text + "]")]
assert stream, "no request stream"

worst = 0.0
for name, mean, sd, source in re.findall(
        r"(\w+) = \{mean_J = ([0-9.eE+-]+) : f64, sd_J = ([0-9.eE+-]+) : f64, source = \"(\w+)\"\}", report):
    if source != "evaluated":
        print(name, "fleet")
        continue
    pj, pt, dj, dt = per_device[name + "_gpu"]
    a, b = pj / pt, dj / dt
    energies = [a * p + b * o for p, o in stream]
    m = sum(energies) / len(energies)
    v = sum((e - m) ** 2 for e in energies) / len(energies)
    err = max(abs(float(mean) - m) / m, abs(float(sd) - math.sqrt(v)) / max(math.sqrt(v), 1e-300))
    worst = max(worst, err)
    print(name, "evaluated", "agree" if err < 1e-9 else "DIFFER %.3g %.3g vs %s %s" % (m, math.sqrt(v), mean, sd))
print("requests", len(stream))
