"""Checks energy-prof route's horizon plot against its CSV: a well-formed
SVG, one Monte Carlo polyline and one closed-form polyline per policy, and
each point's tooltip carrying the CSV's mean and half width (the
control-variate column), equal within the CSV's two decimals and the 4
significant digits the plot prints.
Usage: route-svg.test.py plot.svg table.csv"""
import csv
import re
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
rows = list(csv.DictReader(open(sys.argv[2])))
policies = sorted({r["policy"] for r in rows}, key=lambda p: [r["policy"] for r in rows].index(p))
horizons = sorted({int(r["horizon_slots"]) for r in rows})
print("policies %d, horizons %d" % (len(policies), len(horizons)))
mc = [e for e in root.iter(NS + "polyline") if e.get("class") == "mc"]
cf = [e for e in root.iter(NS + "polyline") if e.get("class") == "closed-form"]
circles = [e for e in root.iter(NS + "circle") if e.get("class") == "mc"]
assert len(mc) == len(policies) and len(cf) == len(policies), (len(mc), len(cf))


def same(plot, table):
    plot, table = float(plot), float(table)
    return abs(plot - table) <= 0.005 + 5e-4 * abs(table)


for i, p in enumerate(policies):
    pts = [tuple(map(float, xy.split(","))) for xy in mc[i].get("points").split()]
    cpts = cf[i].get("points").split()
    mine = [c for c in circles if c.find(NS + "title").text.startswith(p + ":")]
    ok = 0
    for r in (r for r in rows if r["policy"] == p):
        title = next(c.find(NS + "title").text for c in mine
                     if " T = %s slots" % r["horizon_slots"] in c.find(NS + "title").text)
        m = re.search(r"E\[D_T\] = ([0-9.e+-]+) \+- ([0-9.e+-]+) J", title)
        if same(m.group(1), r["aux_controlled_mean_J"]) and \
           same(m.group(2), r["aux_controlled_ci95_J"]):
            ok += 1
    xs = [x for x, _ in pts]
    print("%s: %d points match the CSV, closed form %d points, x %s" %
          (p, ok, len(cpts), "increasing" if xs == sorted(xs) and len(set(xs)) == len(xs) else "NOT increasing"))
ticks = [t for t in root.iter(NS + "text") if t.get("class") == "tick"]
xt = [t.text for t in ticks if t.get("text-anchor") == "middle"]
print("decade ticks: " + " ".join(xt))
