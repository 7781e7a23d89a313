"""The metrics endpoint in multi-process jobs (ENERGY_RT_METRICS_PORT):
a port another process holds is a warning and the job runs on; N+LOCAL_RANK
gives each rank of a node its own port; a forked worker of a measuring
process (a DataLoader's) does not serve (its parent does); and the metrics
textfile is written once more at exit, so that it holds the whole job."""
import os
import socket
import subprocess
import sys

ENV = dict(os.environ, ENERGY_RT_DEVICE="sim:a100")
ENV.pop("ENERGY_RT_METRICS_PORT", None)
ENV.pop("ENERGY_RT_METRICS_FILE", None)
ENV.pop("ENERGY_RT_MEASURING_PID", None)

JOB = """
import energy_rt, sys
m = energy_rt.Monitor()
for _ in range(5):
    m.begin_window("step")
    energy_rt.sim_run(1e12, 1e9)
    m.end_window("step")
    energy_rt.step()
print("port", energy_rt.metrics_port())
"""


def run(code, **extra):
    env = dict(ENV, **extra)
    return subprocess.run([sys.executable, "-c", code], env=env,
                          capture_output=True, text=True, timeout=120)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# A port in use: said, and the job completes.
held = socket.socket()
held.bind(("127.0.0.1", 0))
held.listen(1)
busy = held.getsockname()[1]
r = run(JOB, ENERGY_RT_METRICS_PORT=str(busy))
held.close()
assert r.returncode == 0, r.stderr
assert "energy_rt: warning: metrics not served" in r.stderr, r.stderr
assert "port None" in r.stdout, r.stdout
print("port in use: warned, job completed")

# N+LOCAL_RANK: rank 3 of the node serves on N + 3.
base = max(free_port() - 3, 1024)
r = run(JOB, ENERGY_RT_METRICS_PORT="%d+LOCAL_RANK" % base, LOCAL_RANK="3")
assert r.returncode == 0, r.stderr
assert ("port %d" % (base + 3)) in r.stdout, (base, r.stdout, r.stderr)
print("N+LOCAL_RANK: served on N + 3")

# A forked worker measures its regions and does not serve.
FORK = """
import energy_rt, os, sys
m = energy_rt.Monitor()
parent = energy_rt.metrics_port()
pid = os.fork()
if pid == 0:
    with energy_rt.region("load"):
        energy_rt.sim_run(1e12, 0)
    os._exit(0 if energy_rt.metrics_port() is None else 3)
_, status = os.waitpid(pid, 0)
print("parent serves", bool(parent), "worker exit", os.waitstatus_to_exitcode(status))
"""
r = run(FORK, ENERGY_RT_METRICS_PORT="0")
assert r.returncode == 0, r.stderr
assert "parent serves True worker exit 0" in r.stdout, (r.stdout, r.stderr)
assert "Address already in use" not in r.stderr, r.stderr
print("forked worker: does not serve")

# The textfile at exit holds all five runs (the interval alone wrote it
# once, at the first step).
path = os.path.join(sys.argv[1], "exit.prom")
r = run(JOB, ENERGY_RT_METRICS_FILE=path, ENERGY_RT_METRICS_INTERVAL="3600")
assert r.returncode == 0, r.stderr
runs = [line for line in open(path) if line.startswith(
    "energy_rt_region_runs_total{region=\"step\"")]
assert runs and runs[0].split()[-1] == "5", runs
print("textfile at exit: 5 runs")
