"""Signals x settings: is every clock and power limit a process changed back
to its default once the process is gone? Measured on the simulated A100's
mirrored settings (runtime/SimDevice.h: the mirror files outlive the
process, as a GPU's settings do), for
  - `energy-prof run-plan` following a plan that sets gpu0's clock and
    gpu1's power limit (test/Runtime/Inputs/plan-two-gpus.json), and
  - the C API inside a Python process (energy_rt.load_plan's er_plan_clock:
    a region begun at 900 MHz),
each hit by every fatal signal. SIGKILL cannot be caught: there the next
`energy-prof restore` (or the next er_init) restores from the record.
Prints the table; exits 1 if any setting stays changed.

Usage: signals_table.py BIN_DIR PYTHON_DIR PLAN WORK"""
import os
import signal
import subprocess
import sys

bindir, pydir, plan, work = sys.argv[1:5]
os.makedirs(work, exist_ok=True)
prof = os.path.join(bindir, "energy-prof")
SIGNALS = ["INT", "TERM", "HUP", "QUIT", "ABRT", "SEGV", "BUS", "FPE", "PIPE",
           "USR1", "USR2", "ALRM", "KILL"]


def read(path):
    try:
        return open(path).read().strip()
    except OSError:
        return "?"


def restored(env):
    """Runs `energy-prof restore` for SIGKILL's leftovers; True if it ran."""
    r = subprocess.run([prof, "restore"], env=env, capture_output=True,
                       text=True)
    return r.returncode == 0


rows, bad = [], False
for name in SIGNALS:
    sig = getattr(signal, "SIG" + name)
    state = os.path.join(work, "state-" + name)
    os.makedirs(state, exist_ok=True)
    env = dict(os.environ, ENERGY_RT_STATE_DIR=state)
    # run-plan: its command signals it once the plan holds the settings.
    prefix = os.path.join(work, "rp-" + name)
    held = os.path.join(work, "held-" + name)
    # (What the settings are while the plan holds them, read just before
    # the signal.)
    subprocess.run([prof, "run-plan", plan, "--device", "sim:a100", "--mode",
                    "timeline", "--allow-clock-changes", "--start-delay", "1",
                    "--sim-state", prefix, "--", "sh", "-c",
                    "sleep 0.4; cat %s.gpu0.clock > %s.clock; "
                    "cat %s.gpu1.power > %s.power; kill -%s $PPID; sleep 1"
                    % (prefix, held, prefix, held, name)],
                   env=env, capture_output=True, timeout=60)
    changed_rp = (read(held + ".clock"), read(held + ".power"))
    # The C API: a region at its planned 900 MHz, then the signal.
    mirror = os.path.join(work, "capi-" + name + ".clock")
    clocks = os.path.join(work, "capi.txt")
    with open(clocks, "w") as f:
        f.write("F0 900\n")
    job = ("import os, signal, energy_rt\n"
           "m = energy_rt.Monitor(device='sim:a100')\n"
           "energy_rt.load_plan(%r)\n"
           "m.begin_window('F0')\n"
           "open(%r, 'w').write(open(%r).read())\n"
           "os.kill(os.getpid(), signal.SIG%s)\n" % (clocks, held + ".capi",
                                                      mirror, name))
    subprocess.run([sys.executable, "-c", job],
                   env=dict(env, PYTHONPATH=pydir, ENERGY_RT_SIM_STATE=mirror,
                            ENERGY_RT_ALLOW_CLOCK_CHANGES="1"),
                   capture_output=True, timeout=60)
    changed_capi = read(held + ".capi")
    how = "by the process"
    if name == "KILL":
        restored(env)
        how = "by energy-prof restore"
    after_rp = (read(prefix + ".gpu0.clock"), read(prefix + ".gpu1.power"))
    after_capi = read(mirror)
    # Changed while held (else the case tests nothing), default after.
    ok = (changed_rp[0] not in ("1410", "?") and changed_rp[1] == "250" and
          changed_capi == "900" and after_rp == ("1410", "400") and
          after_capi == "1410")
    bad |= not ok
    rows.append((name, "%s -> %s" % (changed_rp[0], after_rp[0]),
                 "%s -> %s" % (changed_rp[1], after_rp[1]),
                 "%s -> %s" % (changed_capi, after_capi), how,
                 "restored" if ok else "LEFT CHANGED"))

print("| signal | run-plan clock (MHz), held -> after | run-plan power limit (W) | C API clock (MHz) | restored | |")
print("|---|---|---|---|---|---|")
for r in rows:
    print("| SIG%s | %s | %s | %s | %s | %s |" % r)
sys.exit(1 if bad else 0)
