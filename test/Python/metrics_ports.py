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
for var in ("ENERGY_RT_MEASURING_PID", "ENERGY_RT_WORKER", "LOCAL_RANK",
            "RANK", "SLURM_LOCALID", "OMPI_COMM_WORLD_LOCAL_RANK"):
    ENV.pop(var, None)

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


def step_runs(path):
    """The textfile's run count of region "step" (None where absent)."""
    for line in open(path):
        if line.startswith("energy_rt_region_runs_total{region=\"step\""):
            return line.split()[-1]
    return None


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
assert step_runs(path) == "5", step_runs(path)
print("textfile at exit: 5 runs")

# A process a measuring job launches (not its worker: a grandchild, or a
# child that is no multiprocessing worker) serves its own metrics.
LAUNCH = """
import energy_rt, subprocess, sys
m = energy_rt.Monitor()
r = subprocess.run([sys.executable, "-c", sys.argv[1]], capture_output=True,
                   text=True)
print(r.stdout.strip())
"""
r = subprocess.run([sys.executable, "-c", LAUNCH, JOB],
                   env=dict(ENV, ENERGY_RT_METRICS_PORT="0"),
                   capture_output=True, text=True, timeout=120)
assert r.returncode == 0, r.stderr
assert "port None" not in r.stdout and "port " in r.stdout, (r.stdout, r.stderr)
print("launched job: serves")

# The node-local rank from Slurm where there is no LOCAL_RANK (srun).
base = max(free_port() - 2, 1024)
r = run(JOB, ENERGY_RT_METRICS_PORT="%d+LOCAL_RANK" % base, SLURM_LOCALID="2")
assert r.returncode == 0, r.stderr
assert ("port %d" % (base + 2)) in r.stdout, (base, r.stdout, r.stderr)
print("SLURM_LOCALID: served on N + 2")

# er_shutdown writes the textfile too (a C job that shuts down before exit).
path = os.path.join(sys.argv[1], "shutdown.prom")
r = run(JOB + "energy_rt._lib.er_shutdown()\n", ENERGY_RT_METRICS_FILE=path,
        ENERGY_RT_METRICS_INTERVAL="3600")
assert r.returncode == 0, r.stderr
assert step_runs(path) == "5", step_runs(path)
print("textfile at er_shutdown: 5 runs")

# HEAD: headers only, no body.
HEAD = """
import energy_rt, socket
m = energy_rt.Monitor()
s = socket.create_connection(("127.0.0.1", energy_rt.metrics_port()))
s.sendall(b"HEAD /metrics HTTP/1.0\\r\\n\\r\\n")
data = b""
while True:
    chunk = s.recv(4096)
    if not chunk:
        break
    data += chunk
head, _, body = data.partition(b"\\r\\n\\r\\n")
print(head.split(b"\\r\\n")[0].decode(), "body", len(body))
"""
r = run(HEAD, ENERGY_RT_METRICS_PORT="0")
assert r.returncode == 0, r.stderr
assert "HTTP/1.0 200 OK body 0" in r.stdout, r.stdout
print("HEAD: 200, no body")
