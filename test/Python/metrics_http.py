"""The runtime's opt-in HTTP /metrics endpoint (ENERGY_RT_METRICS_PORT=0:
any free port): two scrapes around more work parse as Prometheus text, the
counters only grow and match the runtime's own totals; a query string
(a scrape config's params) is the same endpoint; another path is a 404; the endpoint is gone after er_shutdown."""
import re
import urllib.error
import urllib.request

import energy_rt

m = energy_rt.Monitor()
energy_rt.sim_run(1e12, 1e9)
for _ in range(3):
    m.begin_window("step")
    energy_rt.sim_run(2e12, 2e9)
    m.end_window("step")
port = energy_rt.metrics_port()
assert port and port > 0, port
url = f"http://127.0.0.1:{port}/metrics"


def scrape():
    with urllib.request.urlopen(url, timeout=10) as r:
        assert r.status == 200
        assert r.headers["Content-Type"].startswith("text/plain; version=0.0.4")
        text = r.read().decode()
    values = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            assert re.match(r"# (HELP|TYPE) energy_rt_\w+ ", line) or not line, line
            continue
        mt = re.match(r'(energy_rt_\w+)\{([^}]*)\} (\S+)$', line)
        assert mt, line
        labels = dict(re.findall(r'(\w+)="([^"]*)"', mt.group(2)))
        values[(mt.group(1), labels.get("region"))] = float(mt.group(3))
    return values


a = scrape()
# A scrape config's params come as a query string: the same endpoint.
with urllib.request.urlopen(url + "?module=energy", timeout=10) as r:
    assert r.status == 200 and b"energy_rt_region_runs_total" in r.read()
for _ in range(2):
    m.begin_window("step")
    energy_rt.sim_run(2e12, 2e9)
    m.end_window("step")
b = scrape()
key = ("energy_rt_region_runs_total", "step")
assert a[key] == 3 and b[key] == 5, (a[key], b[key])
ek = ("energy_rt_region_energy_joules_total", "step")
assert b[ek] > a[ek] > 0, (a[ek], b[ek])
try:
    urllib.request.urlopen(f"http://127.0.0.1:{port}/other", timeout=10)
    raise SystemExit("expected a 404")
except urllib.error.HTTPError as e:
    assert e.code == 404, e.code
# HEAD: the headers alone (a health check).
with urllib.request.urlopen(urllib.request.Request(url, method="HEAD"),
                            timeout=10) as r:
    assert r.status == 200 and r.read() == b"", r.status
energy_rt._lib.er_shutdown()
try:
    urllib.request.urlopen(url, timeout=2)
    raise SystemExit("still serving after er_shutdown")
except (urllib.error.URLError, ConnectionError):
    pass
print(f"scraped twice: runs {a[key]:.0f} -> {b[key]:.0f}, energy "
      f"{a[ek]:.4g} J -> {b[ek]:.4g} J; HEAD; 404 elsewhere; closed at shutdown")
