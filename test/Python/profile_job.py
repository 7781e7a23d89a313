"""A job profiled across clocks in-process (energy_rt.step and
ENERGY_RT_PROFILE_*), with no code beyond its regions: one warm-up
iteration unrecorded, two at each of 1410, 1005 and 705 MHz, then the
default clock again; the DB flushed at exit (ENERGY_RT_FLUSH_AT_EXIT).
Usage: profile_job.py [--iterations N] [--fail | --wait | --worker]
(environment set by energy-rt-profile.test): --iterations runs N
iterations instead of 8; --fail exits with status 3 after its iterations;
--wait prints "swept" after them and waits to be stopped; --worker then
measures a region "load" in a multiprocessing worker (a DataLoader's kind),
which writes its own shard beside the rank's."""
import sys
import time

import energy_rt

iterations = 1 + 3 * 2 + 1
if "--iterations" in sys.argv:
    iterations = int(sys.argv[sys.argv.index("--iterations") + 1])
for it in range(iterations):
    with energy_rt.region("stage0.forward"):
        energy_rt.sim_run(5e12, 1e9)  # compute-bound: slower at lower clocks
    with energy_rt.region("stage0.backward"):
        energy_rt.sim_run(1e13, 2e9)
    energy_rt.step()
if "--worker" in sys.argv:
    import multiprocessing

    def load():
        with energy_rt.region("load"):
            energy_rt.sim_run(0, 1e9)

    worker = multiprocessing.get_context("fork").Process(target=load)
    worker.start()
    worker.join()
    assert worker.exitcode == 0, worker.exitcode
if "--fail" in sys.argv:
    sys.exit(3)
if "--wait" in sys.argv:
    print("swept", flush=True)
    time.sleep(60)
