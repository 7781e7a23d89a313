"""One rank of a job profiled across clocks under energy-prof profile
(RANK and WORLD_SIZE set by the test, as torchrun would): ITERATIONS
iterations of one region, then, with --kill, SIGKILL to itself (the OOM
killer's way: no exit path runs).
Usage: rank_job.py ITERATIONS [--kill]"""
import os
import signal
import sys

import energy_rt

for it in range(int(sys.argv[1])):
    with energy_rt.region("fwd"):
        energy_rt.sim_run(5e12, 1e9)
    energy_rt.step()
if "--kill" in sys.argv:
    os.kill(os.getpid(), signal.SIGKILL)
