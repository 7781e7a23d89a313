"""energy-prof profile stopped by a signal: SIGTERM sent to energy-prof
(a scheduler's stop) is passed on to the job, whose rank writes its shard
on the way out (energy_rt exits through its handlers on SIGTERM), and
energy-prof pools it into the DB before returning the job's status.
Usage: profile_signal.py ENERGY_PROF PROFILE_JOB OUT.json"""
import json
import signal
import subprocess
import sys

prof, job, out = sys.argv[1:4]
p = subprocess.Popen(
    [prof, "profile", "--device", "sim:a100", "--clocks", "1410,1005",
     "--iterations-per-clock", "2", "--warmup", "1", "--allow-clock-changes",
     "-o", out, "--", sys.executable, job, "--wait"],
    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
for line in p.stdout:
    if line.strip() == "swept":
        break
p.send_signal(signal.SIGTERM)
_, err = p.communicate(timeout=60)
assert "the DB holds what its 1 rank(s) measured before" in err, err
entries = json.load(open(out))["entries"]
clocks = sorted({e["sm_mhz"] for e in entries}, reverse=True)
print("energy-prof exited %d, the DB has %d entries at %s MHz" % (
    p.returncode, len(entries), ",".join(map(str, clocks))))
