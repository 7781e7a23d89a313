"""Feeds each tool an input without end: its standard input, and for one
tool a named FIFO (endless-input.test). With --out-of-memory, under a 1 GB
address-space limit and a 2,000 MiB limit of one input, so that memory runs
out first (out-of-memory.test)."""
import os
import resource
import subprocess
import sys
import tempfile
import threading

tools = sys.argv[1]
oom = "--out-of-memory" in sys.argv[2:]
if oom:
    CASES = [
        ("energy-opt", ["energy-opt", "-", "-o", os.devnull]),
        ("energy-translate", ["energy-translate", "--import-kineto", "-",
                              "-o", os.devnull]),
        ("energy-prof", ["energy-prof", "merge", "-", "-o", os.devnull]),
    ]
else:
    CASES = [
        ("energy-opt", ["energy-opt", "-", "-o", os.devnull]),
        ("energy-translate --import-kineto",
         ["energy-translate", "--import-kineto", "-", "-o", os.devnull]),
        ("energy-translate --import-stage-profile",
         ["energy-translate", "--import-stage-profile", "-", "--microbatches",
          "2", "--device", "A40", "-o", os.devnull]),
        ("energy-translate --export-plan",
         ["energy-translate", "--export-plan", "-", "-o", os.devnull]),
        ("energy-prof merge", ["energy-prof", "merge", "-", "-o", os.devnull]),
        ("energy-prof plan-clocks", ["energy-prof", "plan-clocks", "-"]),
        ("energy-prof validate-serving",
         ["energy-prof", "validate-serving", "-"]),
    ]
env = dict(os.environ, ENERGY_MAX_INPUT_MB="2000" if oom else "1")
# Every reader takes its input whole before it parses it: what the bytes
# say does not matter.
chunk = b"1, " * (1 << 14)


def feed(pipe):
    try:
        while True:
            pipe.write(chunk)
    except (BrokenPipeError, ValueError, OSError):
        pass


def limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))


def run(name, argv, stdin, feeder):
    """Runs argv, fed by `feeder` without end; prints what became of it."""
    argv = [os.path.join(tools, argv[0])] + argv[1:]
    with tempfile.TemporaryFile() as errf:
        p = subprocess.Popen(argv, stdin=stdin, stdout=subprocess.DEVNULL,
                             stderr=errf, env=env,
                             preexec_fn=limit_memory if oom else None)
        threading.Thread(target=feeder, args=(p,), daemon=True).start()
        try:
            p.wait(timeout=120)
        except subprocess.TimeoutExpired:
            p.kill()
            print(f"{name}: still running after 120 s")
            return False
        errf.seek(0)
        err = errf.read().decode(errors="replace")
    if oom:
        said = f"{name}: error: out of memory" in err
        print(f"{name}: exit {p.returncode}, "
              f"{'out of memory said' if said else err.strip()[:300]}")
        return p.returncode == 1 and said
    if p.returncode != 0 and "more than 1 MiB (the limit of one input" in err:
        print(f"{name}: refused at the limit")
        return True
    print(f"{name}: exit {p.returncode}: {err.strip()[:300]}")
    return False


ok = True
for name, argv in CASES:
    ok &= run(name, argv, subprocess.PIPE, lambda p: feed(p.stdin))

# A named FIFO (opened by name, as a process substitution is), fed by a
# writer that never stops.
if not oom:
    with tempfile.TemporaryDirectory() as d:
        fifo = os.path.join(d, "endless")
        os.mkfifo(fifo)

        def fifo_writer(_):
            with open(fifo, "wb") as w:
                feed(w)

        ok &= run("energy-opt FIFO", ["energy-opt", fifo, "-o", os.devnull],
                  subprocess.DEVNULL, fifo_writer)
sys.exit(0 if ok else 1)
