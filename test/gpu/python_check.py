"""The Python API on a real GPU: part of the prepared GPU check
(test/gpu/check.sh), read-only on the GPU (no clock or limit is changed).

    PYTHONPATH=BUILD/python python3 test/gpu/python_check.py \
        BUILD/lib/libenergy_microbench.so CAPI_CHECK_OUTPUT

energy_rt.Monitor windows on cuda:0 (at the card's current clocks) around
the same kernels capi-check runs through the C API (FMA and copy back to
back for a second, five windows each); prints each window's energy, time
and mean power and compares each kernel's mean power with capi-check's
from the same machine (its output file). Exits 1 when a window's power is
implausible (outside 50-1000 W), the windows of a kernel disagree by more
than 5 %, or the mean differs from capi-check's by more than 5 %; 2 when
something fails to run.
"""
import ctypes
import re
import sys

import energy_rt

def failed(why):
    print("python-check: %s" % why, file=sys.stderr)
    sys.exit(2)


lib_path, capi_out = sys.argv[1:3]
lib = ctypes.CDLL(lib_path)
lib.emb_run.argtypes = [ctypes.c_char_p, ctypes.c_double,
                        ctypes.POINTER(ctypes.c_uint)]
lib.emb_last_error.restype = ctypes.c_char_p
if lib.emb_init() != 0:
    failed(lib.emb_last_error().decode())
# The context exists: the Monitor measures the ready card's static power.
monitor = energy_rt.Monitor(gpu_indices=[0])
capi = {}
for line in open(capi_out):
    m = re.match(r"(\w+)\s+mean power ([0-9.]+) W", line)
    if m:
        capi[m.group(1)] = float(m.group(2))
print("%-6s %4s %8s %10s %10s %10s" % ("kernel", "win", "calls", "E (J)",
                                      "T (s)", "P (W)"))
bad = False
for kernel in ("fma", "copy"):
    powers = []
    for w in range(5):
        calls = ctypes.c_uint(0)
        monitor.begin_window(kernel)
        if lib.emb_run(kernel.encode(), 1.0, ctypes.byref(calls)) != 0:
            failed(lib.emb_last_error().decode())
        m = monitor.end_window(kernel)
        powers.append(m.total_energy / m.time)
        print("%-6s %4d %8d %10.3f %10.4f %10.1f" % (
            kernel, w, calls.value, m.total_energy, m.time, powers[-1]))
    mean = sum(powers) / len(powers)
    spread = (max(powers) - min(powers)) / mean
    ref = capi.get(kernel)
    print("%-6s mean %.1f W (spread %.2f %%), capi-check %s" % (
        kernel, mean, 100 * spread,
        "%.1f W (%+.2f %%)" % (ref, 100 * (mean / ref - 1)) if ref else "absent"))
    if min(powers) < 50 or max(powers) > 1000 or spread > 0.05 or \
            (ref and abs(mean / ref - 1) > 0.05):
        print("%-6s: implausible, inconsistent, or unlike capi-check" % kernel)
        bad = True
sys.exit(1 if bad else 0)
