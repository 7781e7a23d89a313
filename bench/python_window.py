#!/usr/bin/env python3
"""Cost of one energy_rt begin_window/end_window pair on the simulated A100
(no counter waits), against the raw ctypes er_begin/er_end pair.
Usage: PYTHONPATH=build/python python3 bench/python_window.py [N]"""
import sys
import timeit

import energy_rt

n = int(sys.argv[1]) if len(sys.argv) > 1 else 200000
m = energy_rt.Monitor(device="sim:a100")
lib = energy_rt._lib
best_pair = min(timeit.repeat(lambda: (m.begin_window("w"), m.end_window("w")),
                              number=n, repeat=5)) / n
best_raw = min(timeit.repeat(lambda: (lib.er_begin(b"x"), lib.er_end(b"x")),
                             number=n, repeat=5)) / n
print("Monitor.begin_window + end_window: %.2f us per pair" % (best_pair * 1e6))
print("ctypes er_begin + er_end:          %.2f us per pair" % (best_raw * 1e6))
