#!/usr/bin/env python3
"""Cost of one energy_rt begin_window/end_window pair (no counter waits),
against the raw ctypes er_begin/er_end pair, on a device:

    PYTHONPATH=build/python python3 bench/python_window.py [N] [DEVICE]

DEVICE: sim:a100 (default), or cuda:0 -- on a machine without a GPU, the
runtime's NVML path on the driver double (test/Runtime/FakeNvml, counter
updated every 100 ms): LD_LIBRARY_PATH=build/test/fake-nvml-current. On a
GPU also: 20 windows whose energies are read as each ends (each waits for
the counter's next update) against the same read after the loop."""
import sys
import time
import timeit

import energy_rt

n = int(sys.argv[1]) if len(sys.argv) > 1 else 200000
device = sys.argv[2] if len(sys.argv) > 2 else "sim:a100"
m = energy_rt.Monitor(device=device)
lib = energy_rt._lib
best_pair = min(timeit.repeat(lambda: (m.begin_window("w"), m.end_window("w")),
                              number=n, repeat=5)) / n
best_raw = min(timeit.repeat(lambda: (lib.er_begin(b"x"), lib.er_end(b"x")),
                             number=n, repeat=5)) / n
print("Monitor.begin_window + end_window: %.2f us per pair" % (best_pair * 1e6))
print("ctypes er_begin + er_end:          %.2f us per pair" % (best_raw * 1e6))
if not device.startswith("sim:"):
    for read_now in (True, False):
        ms, t0 = [], time.perf_counter()
        for _ in range(20):
            m.begin_window("w")
            ms.append(m.end_window("w"))
            if read_now:
                ms[-1].total_energy
        loop = time.perf_counter() - t0
        t1 = time.perf_counter()
        for x in ms:
            x.total_energy
        after = time.perf_counter() - t1
        print("20 windows, energies read %s: loop %.1f ms, reads after it "
              "%.1f ms" % ("as each ends" if read_now else "after the loop",
                           1e3 * loop, 1e3 * after))
