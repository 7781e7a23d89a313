"""A plan's certificate against brute force: for each chunk of a schedule
file written by random_schedules.py and its planned form, every
configuration of real option times is timed (list scheduling in program
order per device, finish-to-start dependencies with their delay, release
times, the makespan from the earliest start, E = static power x makespan
+ dynamic energy: the blocking-power model of docs/FRONTIER.md), and the
least energy within the plan's limit must not be below its lower_bound_J,
nor above its E_J (the plan is one of those configurations).

Usage: plan_bound_brute.py schedules.mlir planned.mlir"""
import itertools
import re
import sys

UNIT = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "J": 1.0, "mJ": 1e-3}
SPLIT = re.compile(r"^// -----\s*$", re.M)


def parse(chunk):
    power = {m.group(1): float(m.group(2)) for m in re.finditer(
        r'sched.device @(\w+) kind "X" static ([0-9.]+) W', chunk)}
    tasks = []
    for m in re.finditer(r"^\s*sched.task @(\w+) on @(\w+)(.*)$", chunk, re.M):
        rest = m.group(3)
        after = re.search(r"after \[([^\]]*)\]", rest)
        delay = re.search(r"delay ([0-9.]+) (ms|s)", rest)
        release = re.search(r"release ([0-9.]+) (ms|s)", rest)
        options = [(float(t) * UNIT[tu], float(d) * UNIT[du]) for t, tu, d, du in
                   re.findall(r"T = ([0-9.]+) (ms|s), d = ([0-9.]+) (mJ|J)>",
                              rest.split("options", 1)[1])]
        tasks.append({
            "name": m.group(1), "device": m.group(2),
            "after": [a.strip()[1:] for a in after.group(1).split(",")]
            if after else [],
            "delay": float(delay.group(1)) * UNIT[delay.group(2)] if delay else 0.0,
            "release": float(release.group(1)) * UNIT[release.group(2)]
            if release else 0.0,
            "options": options})
    return power, tasks


def energy(power, tasks, choice):
    end, free = {}, {}
    first, last, dyn = float("inf"), 0.0, 0.0
    for t, j in zip(tasks, choice):
        T, d = t["options"][j]
        start = max([t["release"], free.get(t["device"], 0.0)] +
                    [end[a] + t["delay"] for a in t["after"]])
        end[t["name"]] = free[t["device"]] = start + T
        first, last, dyn = min(first, start), max(last, start + T), dyn + d
    makespan = last - first  # from the earliest start, as the lowering counts
    return sum(power.values()) * makespan + dyn, makespan


def plan_field(chunk, name):
    m = re.search(r"energy.plan = \{([^}]*)\}", chunk)
    return float(re.search(r"(?:^|[ ,])" + name + r" = ([-+0-9.eE]+)",
                           m.group(1)).group(1))


schedules = SPLIT.split(open(sys.argv[1]).read())
planned = SPLIT.split(open(sys.argv[2]).read())
assert len(schedules) == len(planned), (len(schedules), len(planned))
ok, checked = True, 0
for k, (src, out) in enumerate(zip(schedules, planned)):
    power, tasks = parse(src)
    limit = plan_field(out, "limit_T_s")
    bound, claim = plan_field(out, "lower_bound_J"), plan_field(out, "E_J")
    best = float("inf")
    for choice in itertools.product(*[range(len(t["options"])) for t in tasks]):
        E, M = energy(power, tasks, choice)
        if M <= limit * (1 + 1e-12) + 1e-15:
            best = min(best, E)
    checked += 1
    if not (bound <= best * (1 + 1e-9)) or not (best <= claim * (1 + 1e-9)):
        ok = False
        print("chunk %d: bound %.12g, brute-force optimum %.12g, plan %.12g"
              % (k + 1, bound, best, claim))
print("%d plans: every certificate at or below the brute-force optimum"
      % checked if ok else "CERTIFICATE ABOVE THE OPTIMUM")
sys.exit(0 if ok else 1)
