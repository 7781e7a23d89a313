"""Runs each tool fed without end under a 1 GB address-space limit
(out-of-memory.test)."""
import os
import resource
import subprocess
import sys
import tempfile
import threading

tools = sys.argv[1]
CASES = [
    ("energy-opt", ["energy-opt", "-", "-o", os.devnull]),
    ("energy-translate", ["energy-translate", "--import-kineto", "-", "-o",
                          os.devnull]),
    ("energy-prof", ["energy-prof", "merge", "-", "-o", os.devnull]),
]
env = dict(os.environ, ENERGY_MAX_INPUT_MB="2000")
chunk = b"y\n" * (1 << 15)


def limit():
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))


def feed(pipe):
    try:
        while True:
            pipe.write(chunk)
    except (BrokenPipeError, ValueError, OSError):
        pass


ok = True
for name, argv in CASES:
    argv = [os.path.join(tools, argv[0])] + argv[1:]
    with tempfile.TemporaryFile() as errf:
        p = subprocess.Popen(argv, stdin=subprocess.PIPE,
                             stdout=subprocess.DEVNULL, stderr=errf, env=env,
                             preexec_fn=limit)
        threading.Thread(target=feed, args=(p.stdin,), daemon=True).start()
        try:
            p.wait(timeout=120)
        except subprocess.TimeoutExpired:
            p.kill()
            print(f"{name}: still running after 120 s")
            ok = False
            continue
        errf.seek(0)
        err = errf.read().decode(errors="replace")
    said = f"{name}: error: out of memory" in err
    print(f"{name}: exit {p.returncode}, "
          f"{'out of memory said' if said else err.strip()[:300]}")
    ok &= p.returncode == 1 and said
sys.exit(0 if ok else 1)
