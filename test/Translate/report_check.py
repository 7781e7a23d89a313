"""Checks an --export-report HTML file against the evaluated IR.

Usage: report_check.py report.html evaluated.mlir NTASKS [NPOINTS]

- self-contained: no external script, stylesheet, font or image (no src= or
  href= at all, no url(), no http);
- one <rect class="task"> per task-device share (NTASKS), one
  <circle class="frontier-point"> per frontier point (NPOINTS, if given);
- interval accounting: the static and dynamic bars of every device (their
  <title>s) sum to the evaluated total `energy.total` of the lowered IR.
"""
import re
import sys

html = open(sys.argv[1]).read()
ir = open(sys.argv[2]).read()
ntasks = int(sys.argv[3])
for bad in ("src=", "href=", "url(", "http://", "https://", "@import"):
    if bad in html.replace('xmlns="http://www.w3.org/2000/svg"', ""):
        sys.exit(f"not self-contained: {bad!r} in the report")
tasks = len(re.findall(r'<rect class="task"', html))
assert tasks == ntasks, (tasks, ntasks)
points = len(re.findall(r'<circle class="frontier-point"', html))
if len(sys.argv) > 4:
    assert points == int(sys.argv[4]), (points, sys.argv[4])
static = [float(x) for x in re.findall(r'<rect class="static"[^>]*><title>static ([-0-9.e+]+) J', html)]
dynamic = [float(x) for x in re.findall(r'<rect class="dynamic"[^>]*><title>dynamic ([-0-9.e+]+) J', html)]
assert static and len(static) == len(dynamic), (static, dynamic)
total = sum(static) + sum(dynamic)
want = float(re.search(r"energy\.total = \{E_J = ([-+0-9.eE]+)", ir).group(1))
# The titles carry 4 significant digits per bar.
assert abs(total - want) <= 1e-3 * want + 1e-9, (total, want)
print(f"{tasks} tasks, {points} frontier points, {len(static)} devices; "
      f"bars {total:.4g} J, evaluated {want:.4g} J")
