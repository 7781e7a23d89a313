"""Parses Prometheus text exposition files (format 0.0.4: # HELP / # TYPE
lines, then `name{label="value",...} number` samples) and checks that every
sample's metric was declared, that the labels are well formed, and that
counters never decrease from the first file to the second.
Usage: metrics_check.py before.prom after.prom"""
import re
import sys

SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)\{((?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\.)*",?)*)\} (\S+)$')


def parse(path):
    types, samples = {}, {}
    for n, line in enumerate(open(path), 1):
        line = line.rstrip("\n")
        if line.startswith("# HELP "):
            continue
        if line.startswith("# TYPE "):
            _, _, name, kind = line.split(" ", 3)
            assert kind in ("counter", "gauge"), (path, n, line)
            types[name] = kind
            continue
        m = SAMPLE.match(line)
        assert m, "%s:%d: not a sample: %r" % (path, n, line)
        name, labels, value = m.groups()
        assert name in types, "%s:%d: %s has no TYPE" % (path, n, name)
        samples[(name, labels)] = float(value)
    return types, samples


t0, before = parse(sys.argv[1])
t1, after = parse(sys.argv[2])
for key, v in before.items():
    if t1.get(key[0]) == "counter":
        assert after.get(key, -1) >= v, ("counter decreased", key, v, after.get(key))
print("%d samples, %d metrics; counters monotonic" % (len(after), len(t1)))
for (name, labels), v in sorted(after.items()):
    if name == "energy_rt_region_runs_total":
        print("%s{%s} %g" % (name, labels, v))
