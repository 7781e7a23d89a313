#!/usr/bin/env python3
"""Our frontiers against Perseus's 16 published emulation frontiers.

  bench/perseus_frontiers.py build/bench/frontier-bench ../shared/data

Reads the data in place (the 6 frontiers of perseus/ and the 10 of
perseus-sosp24-extra/, whose archive is unpacked into a temporary folder),
runs frontier-bench on each case with Perseus's conventions (1 ms quantum,
blocking power 83.64 W per A100, 70.38 W per A40) and prints a Markdown
table: ours - theirs at each of their times from their fastest to their
slowest (our best point at that time or faster; worst and mean), our worst
certified gap and where it is, and the time frontier-bench took.
"""
import bisect
import os
import re
import subprocess
import sys
import tarfile
import tempfile

BLOCKING = {"a100_sxm": 83.64, "a40": 70.38}


def read(path):
    rows = []
    with open(path) as f:
        next(f)
        for line in f:
            cells = line.strip().split(",")
            if len(cells) >= 2 and cells[0]:
                rows.append((float(cells[0]), float(cells[1])))
    return sorted(rows)


def compare(ours, theirs):
    times = [t for t, _ in ours]
    prefix, best = [], float("inf")
    for _, e in ours:
        best = min(best, e)
        prefix.append(best)
    rel = []
    for t, e in theirs:
        i = bisect.bisect_right(times, t + 1e-9) - 1
        if i < 0:
            rel.append(float("inf"))  # their time is faster than our fastest
            continue
        rel.append((prefix[i] - e) / e)
    return max(rel), sum(rel) / len(rel), len(rel)


def main():
    bench, data = sys.argv[1], sys.argv[2]
    cases = []
    for gpu, model, mb in [("a40", "bloom", 12), ("a40", "bloom", 48),
                           ("a100_sxm", "bloom", 12),
                           ("a100_sxm", "gpt3-175b", 12),
                           ("a100_sxm", "gpt3-175b", 96),
                           ("a40", "gpt3-175b", 12)]:
        cases.append((gpu, model, mb, os.path.join(
            data, "perseus",
            f"iteration_time_energy_{gpu}_{model}_bf16_mb{mb}.csv")))
    tmp = tempfile.mkdtemp(prefix="perseus-extra-")
    with tarfile.open(os.path.join(
            data, "perseus-sosp24-extra",
            "emulation_frontiers_extra_mb.tar.gz")) as tar:
        tar.extractall(tmp)
    for gpu, model, mb in [("a100_sxm", "bloom", 24), ("a100_sxm", "bloom", 48),
                           ("a100_sxm", "bloom", 96),
                           ("a100_sxm", "gpt3-175b", 24),
                           ("a100_sxm", "gpt3-175b", 48),
                           ("a40", "bloom", 24), ("a40", "bloom", 96),
                           ("a40", "gpt3-175b", 24), ("a40", "gpt3-175b", 48),
                           ("a40", "gpt3-175b", 96)]:
        cases.append((gpu, model, mb, os.path.join(
            tmp, "sosp24_data", "emulation", "iteration_time_energy", gpu,
            f"{model}_bf16_mb{mb}.csv")))
    print("| case | ours - theirs (worst / mean) | certified (worst at) | "
          "time |")
    print("|---|---|---|---|")
    for gpu, model, mb, theirs_path in cases:
        profile = os.path.join(data, "perseus",
                               f"stage_profile_{model}+{gpu}_bf16.csv")
        out = os.path.join(tmp, f"ours-{model}-{gpu}-{mb}.csv")
        run = subprocess.run([bench, profile, str(mb), str(BLOCKING[gpu]),
                              "0.001", "0.0001", out],
                             capture_output=True, text=True, check=True)
        head = run.stdout.splitlines()[0]
        m = re.search(r"([0-9.]+) s, certified worst gap ([0-9.]+) %"
                      r"(?: \(at ([0-9.]+) s\))?", head)
        worst, mean, n = compare(read(out), read(theirs_path))
        where = f" ({m.group(3)} s)" if m.group(3) else ""
        print(f"| {model} {gpu} mb{mb} | {100 * worst:+.2f} % / "
              f"{100 * mean:+.2f} % ({n} times) | {m.group(2)} %{where} | "
              f"{float(m.group(1)):.2f} s |")


if __name__ == "__main__":
    main()
