"""One rank of a job profiled across clocks under energy-prof profile
(RANK and WORLD_SIZE set by the test, as torchrun would): ITERATIONS
iterations of one region, then, with --kill, SIGKILL to itself (the OOM
killer's way: no exit path runs). --touch FILE creates FILE after the first
iteration (the rank has opened its device by then); --kill waits for FILE
first, so that no other rank opens its device after the kill (er_init
would restore the killed rank's device itself).
Usage: rank_job.py ITERATIONS [--touch FILE | --kill FILE]"""
import os
import signal
import sys
import time

import energy_rt

for it in range(int(sys.argv[1])):
    with energy_rt.region("fwd"):
        energy_rt.sim_run(5e12, 1e9)
    energy_rt.step()
    if it == 0 and "--touch" in sys.argv:
        open(sys.argv[sys.argv.index("--touch") + 1], "w").close()
if "--kill" in sys.argv:
    ready = sys.argv[sys.argv.index("--kill") + 1]
    for _ in range(6000):
        if os.path.exists(ready):
            break
        time.sleep(0.01)
    os.kill(os.getpid(), signal.SIGKILL)
