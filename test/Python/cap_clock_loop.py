"""The closed loop of a power cap chosen with the clocks
(energy-rt-profile-grid.test): the job of profile_job.py run as it is and
then following a plan (`energy_rt.load_plan` of a plan-clocks file, which
sets the plan's power cap and each region's clock), each iteration
measured in a window, the mean against the plan's own figures -- the
baseline's (`before_T_s`, `before_E_J`: the schedule as it stood, every
task at its signature, no cap) and the plan's (`planned_T_s`,
`planned_E_J`) -- within 3 % (the simulator's run-to-run noise is 1 %).

    cap_clock_loop.py planned.mlir [clocks.txt] ITERATIONS
"""
import re
import sys

import energy_rt

ir = open(sys.argv[1]).read()
choice = re.search(r"energy.power_cap_choice = \{([^}]*)\}", ir).group(1)


def field(name):
    return float(re.search(name + r" = ([-+0-9.eE]+)", choice).group(1))


following = len(sys.argv) == 4
if following:
    energy_rt.load_plan(sys.argv[2])
iterations = int(sys.argv[-1])
monitor = energy_rt.Monitor()
T = E = 0.0
for it in range(iterations):
    monitor.begin_window("iteration")
    with energy_rt.region("stage0.forward"):
        energy_rt.sim_run(5e12, 1e9)
    with energy_rt.region("stage0.backward"):
        energy_rt.sim_run(1e13, 2e9)
    m = monitor.end_window("iteration")
    T += m.time / iterations
    E += m.total_energy / iterations
    energy_rt.step()
want_T, want_E = ((field("planned_T_s"), field("planned_E_J")) if following
                  else (field("before_T_s"), field("before_E_J")))
what = "plan (%g W)" % field("power_cap_W") if following else "baseline"
print("%s: measured %.4f s, %.4f J; predicted %.4f s, %.4f J" % (
    what, T, E, want_T, want_E))
assert abs(T / want_T - 1) < 0.03, (T, want_T)
assert abs(E / want_E - 1) < 0.03, (E, want_E)
print("%s as predicted" % what)
