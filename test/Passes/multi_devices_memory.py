"""Peak memory of --energy-evaluate on a multi over N devices (one element
each), for N = 1,000 and 4,000: prints both and whether the growth between
them is bounded. Each composition of the multi's children keeps one table of
the devices for all of them; a table per child grows as N^2 (~1 GB at
4,000, ~0.7 GB more than at 1,000). The bound allows 150 MB of growth: the
IR itself grows by a few MB, AddressSanitizer's shadow and quarantine by
less than that."""
import resource
import subprocess
import sys

tool, workdir = sys.argv[1], sys.argv[2]


def peak_kb(n):
    lines = [f'energy.device @g{i} kind "A100" static 60 W' for i in range(n)]
    lines.append("energy.multi @m {")
    lines += [f"  energy.element @e{i} on @g{i} sig <s = 200 W, "
              f"T = {1 + i % 7} ms, d = 1 J>" for i in range(n)]
    lines.append("}")
    path = f"{workdir}/multi{n}.mlir"
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    # ru_maxrss of RUSAGE_CHILDREN is the largest of the children waited for:
    # one child per measurement, in a fresh interpreter.
    code = ("import resource, subprocess, sys; "
            "r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL); "
            "print(r.returncode, "
            "resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    out = subprocess.run([sys.executable, "-c", code, tool, path,
                          "--energy-evaluate"], capture_output=True,
                         text=True, check=True).stdout.split()
    assert out[0] == "0", f"{tool} failed on {n} devices"
    return int(out[1])


small, large = peak_kb(1000), peak_kb(4000)
growth_mb = (large - small) / 1024
print(f"1000 devices: {small / 1024:.0f} MB, 4000 devices: {large / 1024:.0f}"
      f" MB, growth {growth_mb:.0f} MB")
print("growth bounded" if growth_mb < 150 else "growth UNBOUNDED")
