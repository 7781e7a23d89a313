"""A plan's certificate against brute force: for each chunk of a schedule
file written by random_schedules.py and its planned form, every
configuration of real option times is timed (list scheduling in program
order per device, finish-to-start dependencies with their delay, release
times, the makespan from the earliest start, E = static power x makespan
+ dynamic energy: the blocking-power model of docs/FRONTIER.md), and the
least energy within the plan's limit must not be below its lower_bound_J,
nor above its E_J (the plan is one of those configurations).

--joint (schedules from random_schedules.py --caps, planned with
choose-power-cap=true): a configuration is one power cap for the whole
job and each task's option at that cap (a cap some task has no option at
is none); the certificate and the claim are the cap choice's
(`energy.power_cap_choice`: lower_bound_J, planned_E_J), its limit is
checked against the fastest configuration of any cap, the chosen cap's
plan (`energy.plan`) is that claim at that cap, and where the choice says
it is exact the claim is the brute-force optimum itself.

Usage: plan_bound_brute.py [--joint] schedules.mlir planned.mlir"""
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
        options = [(float(t) * UNIT[tu], float(d) * UNIT[du],
                    float(cap) if cap else None) for cap, t, tu, d, du in
                   re.findall(r"(?:power_cap = ([0-9.]+) W, )?"
                              r"T = ([0-9.]+) (ms|s), d = ([0-9.]+) (mJ|J)[,>]",
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
        T, d, _ = t["options"][j]
        start = max([t["release"], free.get(t["device"], 0.0)] +
                    [end[a] + t["delay"] for a in t["after"]])
        end[t["name"]] = free[t["device"]] = start + T
        first, last, dyn = min(first, start), max(last, start + T), dyn + d
    makespan = last - first  # from the earliest start, as the lowering counts
    return sum(power.values()) * makespan + dyn, makespan


def plan_field(chunk, name, attr="energy.plan"):
    m = re.search(attr + r" = \{([^}]*)\}", chunk)
    return float(re.search(r"(?:^|[ ,])" + name + r" = ([-+0-9.eE]+)",
                           m.group(1)).group(1))


joint = "--joint" in sys.argv
files = [a for a in sys.argv[1:] if a != "--joint"]
schedules = SPLIT.split(open(files[0]).read())
planned = SPLIT.split(open(files[1]).read())
assert len(schedules) == len(planned), (len(schedules), len(planned))
ok, checked = True, 0
for k, (src, out) in enumerate(zip(schedules, planned)):
    power, tasks = parse(src)
    if joint:
        choice = "energy.power_cap_choice"
        limit = plan_field(out, "limit_T_s", choice)
        bound = plan_field(out, "lower_bound_J", choice)
        claim = plan_field(out, "planned_E_J", choice)
        chosen = plan_field(out, "power_cap_W", choice)
        # The chosen cap's plan is the claim, and every planned task runs
        # at an option of that cap.
        if abs(plan_field(out, "E_J") - claim) > 1e-9 * claim or any(
                float(c) != chosen for c in re.findall(
                    r"energy.dvfs = #energy.op_point<[^>]*power_cap = ([0-9.]+) W",
                    out)):
            ok = False
            print("chunk %d: the plan is not the cap choice's" % (k + 1))
        caps = sorted({o[2] for t in tasks for o in t["options"]})
        fastest = float("inf")
        groups = []
        for cap in caps:
            at = [[j for j, o in enumerate(t["options"]) if o[2] == cap]
                  for t in tasks]
            if all(at):
                groups.append(at)
                quick = [min(js, key=lambda j: t["options"][j][0])
                         for t, js in zip(tasks, at)]
                fastest = min(fastest, energy(power, tasks, quick)[1])
        # (A deadline= is the limit as given: max_slowdown_pct absent.)
        slowdown = re.search(r"max_slowdown_pct = ([-+0-9.eE]+)", out)
        slowdown = float(slowdown.group(1)) if slowdown else None
        if slowdown is not None and \
                abs(limit - fastest * (1 + slowdown / 100)) > 1e-9 * limit:
            ok = False
            print("chunk %d: limit %.12g, the fastest cap's %.12g x %g %%"
                  % (k + 1, limit, fastest, slowdown))
    else:
        limit = plan_field(out, "limit_T_s")
        bound, claim = plan_field(out, "lower_bound_J"), plan_field(out, "E_J")
        groups = [[range(len(t["options"])) for t in tasks]]
    best = float("inf")
    for at in groups:
        for choice in itertools.product(*at):
            E, M = energy(power, tasks, choice)
            if M <= limit * (1 + 1e-12) + 1e-15:
                best = min(best, E)
    checked += 1
    # A cap choice that says it is exact is the optimum over every cap.
    if joint and re.search(r"power_cap_choice = \{[^}]*exact = true", out) \
            and not claim <= best * (1 + 1e-9):
        ok = False
        print("chunk %d: exact, but %.12g above the brute-force optimum %.12g"
              % (k + 1, claim, best))
    if not (bound <= best * (1 + 1e-9)) or not (best <= claim * (1 + 1e-9)):
        ok = False
        print("chunk %d: bound %.12g, brute-force optimum %.12g, plan %.12g"
              % (k + 1, bound, best, claim))
print("%d plans: every certificate at or below the brute-force optimum"
      % checked if ok else "CERTIFICATE ABOVE THE OPTIMUM")
sys.exit(0 if ok else 1)
