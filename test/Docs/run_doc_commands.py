"""Runs every fenced `sh` block of README.md, docs/*.md and
examples/*/README.md as written, so that the docs cannot drift from the
tools. Each block runs as one bash script (errexit, pipefail) from a
scratch copy of the repository root: its entries are symlinked, `build`
points at the build tree, and `../shared` at the shared data folder when
there is one. Paths under /tmp in the docs are read as under WORK_DIR/tmp
(and TMPDIR points there), so that runs of this test, and a user following
the docs at the same time, do not write each other's files. Lines of the small allow-list below are not run (they build
the project themselves or need a GPU); blocks that read ../shared/data are
skipped, and said so, where it is absent.

Usage: run_doc_commands.py SRC_ROOT BUILD_ROOT WORK_DIR"""
import glob
import os
import re
import shutil
import subprocess
import sys

src, build, work = (os.path.abspath(a) for a in sys.argv[1:4])
# Not run: the set-up commands (they build and test the project: this test
# runs inside them), what needs a GPU, and the closed-loop example (a timed
# 4-rank job that test/Examples/torch-pipeline.test runs alone).
SKIP = [re.compile(p) for p in (r"^make (demo|test)\b", r"torchrun",
                                r"examples/torch-pipeline/closed_loop\.py",
                                r"--device cuda(?!\S)(?!.*--dry-run)")]

files = [os.path.join(src, "README.md")]
files += sorted(glob.glob(os.path.join(src, "docs", "*.md")))
files += sorted(glob.glob(os.path.join(src, "examples", "*", "README.md")))

shutil.rmtree(work, ignore_errors=True)
root = os.path.join(work, "main")
os.makedirs(root)
tmp = os.path.join(work, "tmp")
os.makedirs(tmp)
for entry in os.listdir(src):
    if entry in ("build", ".git"):
        continue
    os.symlink(os.path.join(src, entry), os.path.join(root, entry))
os.symlink(build, os.path.join(root, "build"))
shared = os.path.join(os.path.dirname(src), "shared")
if os.path.isdir(os.path.join(shared, "data")):
    os.symlink(shared, os.path.join(work, "shared"))


def blocks(path):
    out, cur, line0 = [], None, 0
    for n, line in enumerate(open(path, encoding="utf-8"), 1):
        if cur is None and line.startswith("```sh"):
            cur, line0 = [], n + 1
        elif cur is not None and line.startswith("```"):
            out.append((line0, cur))
            cur = None
        elif cur is not None:
            cur.append(line.rstrip("\n"))
    return out


def logical(lines):
    """Joins backslash continuations; drops comments and blank lines."""
    out, acc = [], ""
    for line in lines:
        if not acc and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if line.endswith("\\"):
            acc += line[:-1] + " "
            continue
        out.append(acc + line)
        acc = ""
    return out


ran = skipped = failed = 0
ASSIGN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=\S*$")
for path in files:
    rel = os.path.relpath(path, src)
    # A document is read top to bottom: variables set by an earlier block
    # (B=build/bin) hold in the later ones.
    env = []
    for line0, lines in blocks(path):
        cmds = [c for c in logical(lines)
                if not any(p.search(c.strip()) for p in SKIP)]
        prelude = list(env)
        env += [c for c in cmds if ASSIGN.match(c.strip())]
        if not cmds:
            continue
        where = "%s:%d" % (rel, line0)
        if any("../shared/data" in c for c in cmds) and \
                not os.path.islink(os.path.join(work, "shared")):
            print("%s: skipped (needs ../shared/data)" % where)
            skipped += 1
            continue
        script = "set -eo pipefail\n" + "\n".join(prelude + cmds) + "\n"
        script = re.sub(r"(?<![\w.])/tmp(?=/|\b)", tmp, script)
        r = subprocess.run(["bash", "-c", script], cwd=root,
                           capture_output=True, text=True, timeout=600,
                           env=dict(os.environ, TMPDIR=tmp))
        ran += 1
        if r.returncode != 0:
            failed += 1
            print("%s: FAILED (exit %d)\n--- script\n%s--- stderr\n%s"
                  % (where, r.returncode, script, r.stderr[-4000:]))
        else:
            print("%s: ok (%d commands)" % (where, len(cmds)))
print("doc blocks: %d run, %d skipped, %d failed" % (ran, skipped, failed))
sys.exit(1 if failed else 0)
