// A power cap the device's kind does not have (a Zeus table of another GPU,
// or a typo): --export-plan refuses it at the device, not the job that
// loads the plan file (er_plan_load, run-plan). A40s take 100-300 W; an
// H200's least limit is not known here, so only its most (700 W) is held.
// RUN: rm -rf %t && mkdir -p %t
// RUN: printf 'power_limit,time,energy\n450,6.0,6000\n350,6.1,5800\n' > %t/high.csv
// RUN: energy-opt %s --energy-power-cap="table=%t/high.csv max-slowdown=0" --energy-plan="max-slowdown=0" | not energy-translate --export-plan -o %t/p.json 2>&1 | FileCheck %s --check-prefix=HIGH
// HIGH: error: --export-plan: the plan caps @g at 450 W, outside the power limits of its kind 'A40' (100-300 W): was the table (or the DB's caps) measured on another GPU?
// RUN: printf 'power_limit,time,energy\n300,6.0,6000\n75,9.0,5000\n' > %t/low.csv
// RUN: energy-opt %s --energy-power-cap="table=%t/low.csv max-slowdown=60" --energy-plan="max-slowdown=0" | not energy-translate --export-plan -o %t/p.json 2>&1 | FileCheck %s --check-prefix=LOW
// LOW: error: --export-plan: the plan caps @g at 75 W, outside the power limits of its kind 'A40' (100-300 W)
// A limit in range is exported.
// RUN: printf 'power_limit,time,energy\n300,6.0,6000\n250,6.2,5500\n' > %t/ok.csv
// RUN: energy-opt %s --energy-power-cap="table=%t/ok.csv max-slowdown=10" --energy-plan="max-slowdown=0" | energy-translate --export-plan | FileCheck %s --check-prefix=OK
// OK: "power_cap_W": 250
// RUN: printf 'power_limit,time,energy\n800,6.0,6000\n700,6.2,5500\n' > %t/h200.csv
// RUN: sed 's/"A40"/"H200"/' %s | energy-opt --energy-power-cap="table=%t/h200.csv max-slowdown=0" --energy-plan="max-slowdown=0" | not energy-translate --export-plan 2>&1 | FileCheck %s --check-prefix=H200
// H200: the plan caps @g at 800 W, outside the power limits of its kind 'H200' (at most 700 W)

sched.schedule @s {
  sched.device @g kind "A40" static 70 W
  sched.task @a on @g sig <T = 6 s, d = 5 kJ>
}
