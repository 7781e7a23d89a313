"""A job writing Prometheus metrics through ENERGY_RT_METRICS_FILE (at
every step here: interval 0) and energy_rt.write_metrics.
Usage: metrics_job.py BEFORE AFTER"""
import shutil
import sys

import energy_rt

energy_rt.Monitor(device="sim:a100")
for it in range(3):
    with energy_rt.region('step "quoted"'):
        energy_rt.sim_run(1e12, 1e9)
    energy_rt.step()
    if it == 0:
        energy_rt.write_metrics(sys.argv[1])
energy_rt.write_metrics(sys.argv[2])
