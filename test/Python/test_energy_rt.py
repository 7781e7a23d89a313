"""The Python package energy_rt against the simulated A100's documented
model (runtime/SimDevice.h): a 1 s copy at the HBM bandwidth (2.04e12 B)
draws 60 W static + 30e-12 W/(B/s) x 2.04e12 B/s = 61.2 W dynamic, each
run with 1 % noise. Regions read the model's exact energy, so a window
shorter than the counter's 100 ms step is priced right too."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

import energy_rt

COPY_BYTES = 2.04e12  # one second of copy on the simulated A100


def run_job(job, args=(), drop=(), **env):
    """Runs the program `job` as a script (multiprocessing's spawn needs a
    file) in a fresh temporary folder, with `env` added to the environment
    and the variables in `drop` removed; "{out}" in `args` and `env` is a
    folder for its shards. Returns the run and the shards written there,
    name -> their JSON document."""
    with tempfile.TemporaryDirectory() as d:
        script = os.path.join(d, "job.py")
        with open(script, "w") as f:
            f.write(job)
        out = os.path.join(d, "out")
        os.mkdir(out)
        environ = dict(os.environ, **{k: v.format(out=out)
                                      for k, v in env.items()})
        for name in drop:
            environ.pop(name, None)
        r = subprocess.run([sys.executable, script] +
                           [a.format(out=out) for a in args],
                           capture_output=True, text=True, env=environ)
        shards = {}
        for name in os.listdir(out):
            with open(os.path.join(out, name)) as f:
                shards[name] = json.load(f)
        return r, shards


class EnergyRtTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.monitor = energy_rt.Monitor(device="sim:a100")

    def test_version_and_device(self):
        self.assertRegex(energy_rt.version(), r"^energy \d+\.\d+\.\d+ \(git ")
        self.assertTrue(self.monitor.device.startswith("sim:A100"))
        self.assertEqual(energy_rt.rank(), int(os.environ.get("RANK", "0")))

    def test_window_matches_the_model(self):
        self.monitor.begin_window("copy")
        for _ in range(10):
            energy_rt.sim_run(0, COPY_BYTES)
        m = self.monitor.end_window("copy")
        self.assertIsInstance(m, energy_rt.Measurement)
        self.assertAlmostEqual(m.time, 10.0, delta=0.2)
        self.assertAlmostEqual(m.total_energy, 121.2 * m.time,
                               delta=0.02 * 121.2 * m.time)
        self.assertAlmostEqual(m.s, 60.0, delta=0.6)
        self.assertAlmostEqual(m.d, m.total_energy - m.s * m.time, places=9)
        self.assertAlmostEqual(m.d / m.time, 61.2, delta=0.03 * 61.2)
        self.assertEqual(m.energy, {0: m.total_energy})
        self.assertEqual(m.clock_mhz, 1410)

    def test_short_windows(self):
        # 5 ms, a twentieth of the counter's period.
        self.monitor.begin_window("short")
        energy_rt.sim_run(0, COPY_BYTES / 200)
        m = self.monitor.end_window("short")
        self.assertAlmostEqual(m.time, 0.005, delta=0.0002)
        self.assertAlmostEqual(m.total_energy, 121.2 * m.time,
                               delta=0.03 * 121.2 * m.time)

    def test_nested_windows_and_repeats(self):
        self.monitor.begin_window("outer")
        parts = []
        for _ in range(2):
            self.monitor.begin_window("inner")
            energy_rt.sim_run(0, COPY_BYTES / 4)
            parts.append(self.monitor.end_window("inner"))
        outer = self.monitor.end_window("outer")
        # Each repeat is its own measurement, not the running total.
        for p in parts:
            self.assertAlmostEqual(p.time, 0.25, delta=0.01)
        self.assertAlmostEqual(outer.total_energy,
                               sum(p.total_energy for p in parts),
                               delta=1e-6 * outer.total_energy)

    def test_region_context_and_decorator(self):
        with energy_rt.region("ctx", self.monitor) as r:
            energy_rt.sim_run(0, COPY_BYTES / 10)
        self.assertAlmostEqual(r.measurement.time, 0.1, delta=0.005)

        @energy_rt.region("decorated", self.monitor)
        def work():
            energy_rt.sim_run(0, COPY_BYTES / 10)
            return 7
        self.assertEqual(work(), 7)

    def test_errors_are_exceptions_with_the_runtime_message(self):
        with self.assertRaisesRegex(energy_rt.EnergyRuntimeError, "not open"):
            self.monitor.end_window("never-opened")
        with self.assertRaises(ValueError):
            self.monitor.begin_window("")
        self.monitor.begin_window("twice")
        with self.assertRaisesRegex(energy_rt.EnergyRuntimeError, "already open"):
            self.monitor.begin_window("twice")
        # Zeus raises ValueError for both misuses; code ported from it
        # catches ours alike.
        with self.assertRaisesRegex(ValueError, "already open"):
            self.monitor.begin_window("twice")
        self.monitor.end_window("twice")
        with self.assertRaisesRegex(ValueError, "not open"):
            self.monitor.end_window("twice")
        with self.assertRaisesRegex(ValueError, "one GPU per process"):
            energy_rt.Monitor(gpu_indices=[0, 1])
        # One device per process: another is refused, not silently ignored.
        with self.assertRaisesRegex(energy_rt.EnergyRuntimeError,
                                    "one device per process"):
            energy_rt.Monitor(device="sim:h100")
        # Work that no kernel can be: refused with the runtime's reason.
        for flops, nbytes in ((float("inf"), 0), (0, float("nan")),
                              (-1, 0), (0, -5)):
            with self.assertRaisesRegex(energy_rt.EnergyRuntimeError,
                                        "finite and non-negative"):
                energy_rt.sim_run(flops, nbytes)
        with self.assertRaisesRegex(energy_rt.EnergyRuntimeError,
                                    "more than a day"):
            energy_rt.sim_run(1e30, 0)

    def test_monitors_are_independent(self):
        # Two Monitors (a library's and the user's, as with Zeus) may each
        # open the same name, nested or interleaved; each window measures
        # its own span, and the DB pools both monitors' runs by name.
        a, b = self.monitor, energy_rt.Monitor(device="sim:a100")
        a.begin_window("both")
        energy_rt.sim_run(0, COPY_BYTES)
        b.begin_window("both")
        energy_rt.sim_run(0, COPY_BYTES)
        ma = a.end_window("both")
        energy_rt.sim_run(0, COPY_BYTES)
        mb = b.end_window("both")
        self.assertAlmostEqual(ma.time, 2.0, delta=0.05)
        self.assertAlmostEqual(mb.time, 2.0, delta=0.05)
        with self.assertRaisesRegex(energy_rt.EnergyRuntimeError,
                                    "not open in this thread"):
            b.end_window("both")
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "monitors-%r.json")
            energy_rt.flush(path)
            with open(path.replace("%r", str(energy_rt.rank()))) as f:
                entry = [e for e in json.load(f)["entries"]
                         if e["key"] == "both"][0]
        self.assertEqual(entry["runs"], 2)

    def test_windows_are_per_thread(self):
        import threading
        # A window one thread opened is not another's to end, and stays
        # open (and endable) for its own thread.
        self.monitor.begin_window("mine")
        seen = {}

        def other():
            try:
                self.monitor.end_window("mine")
            except energy_rt.EnergyRuntimeError as e:
                seen["error"] = str(e)
            # Its own window of the same name is its own.
            self.monitor.begin_window("mine")
            energy_rt.sim_run(0, COPY_BYTES / 100)
            seen["time"] = self.monitor.end_window("mine").time
        t = threading.Thread(target=other)
        t.start()
        t.join()
        self.assertIn("not open in this thread", seen["error"])
        self.assertAlmostEqual(seen["time"], 0.01, delta=0.001)
        m = self.monitor.end_window("mine")
        self.assertGreaterEqual(m.time, seen["time"])
        self.monitor.begin_window("mine")  # and it can be opened again
        self.monitor.end_window("mine")

    def test_a_thread_that_ended_with_a_window_open_blocks_no_other(self):
        import threading
        # Its window stays its own: later threads (which can get the ended
        # thread's std::thread::id) open and end theirs of the same name.
        t = threading.Thread(
            target=lambda: self.monitor.begin_window("left open"))
        t.start()
        t.join()
        times, errors = [], []

        def later():
            try:
                self.monitor.begin_window("left open")
                energy_rt.sim_run(0, COPY_BYTES / 100)
                times.append(self.monitor.end_window("left open").time)
            except energy_rt.EnergyRuntimeError as e:
                errors.append(str(e))
        for _ in range(5):
            t = threading.Thread(target=later)
            t.start()
            t.join()
        self.assertEqual(errors, [])
        self.assertEqual(len(times), 5)
        for time in times:
            self.assertAlmostEqual(time, 0.01, delta=0.001)

    def test_a_forked_child_measures(self):
        # The child initializes its own runtime (the parent's counters are
        # not its own) through the parent's Monitor.
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                os.close(r)
                self.monitor.begin_window("child")
                energy_rt.sim_run(0, COPY_BYTES / 10)
                m = self.monitor.end_window("child")
                os.write(w, repr(m.time).encode())
                code = 0
            except BaseException as e:
                os.write(w, ("error " + repr(e)).encode())
            finally:
                os._exit(code)
        os.close(w)
        with os.fdopen(r) as f:
            out = f.read()
        _, status = os.waitpid(pid, 0)
        self.assertEqual(os.waitstatus_to_exitcode(status), 0, out)
        self.assertAlmostEqual(float(out), 0.1, delta=0.005)
        # The parent is untouched.
        with energy_rt.region("parent", self.monitor) as r:
            energy_rt.sim_run(0, COPY_BYTES / 10)
        self.assertAlmostEqual(r.measurement.time, 0.1, delta=0.005)
        # A region in a child, through a new default Monitor (a DataLoader
        # worker's), measures the device its parent asked for -- it took
        # cuda:LOCAL_RANK, which failed without a GPU or measured another.
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                with energy_rt.region("worker.load"):
                    energy_rt.sim_run(0, COPY_BYTES / 10)
                code = 0
            finally:
                os._exit(code)
        _, status = os.waitpid(pid, 0)
        self.assertEqual(os.waitstatus_to_exitcode(status), 0)

    def test_region_on_coroutines_and_generators(self):
        import asyncio

        @energy_rt.region("awaited", self.monitor)
        async def decode():
            await asyncio.sleep(0)
            energy_rt.sim_run(0, COPY_BYTES / 10)
            return 3
        self.assertEqual(asyncio.run(decode()), 3)
        # The awaited body ran inside the window: the region's signature
        # holds its 0.1 s (before, the window closed on creating the
        # coroutine and recorded 0).
        with tempfile.TemporaryDirectory() as d:
            energy_rt.flush(os.path.join(d, "db.json"))
            with open(os.path.join(d, "db.json")) as f:
                entry = [e for e in json.load(f)["entries"]
                         if e["key"] == "awaited"][0]
        self.assertAlmostEqual(entry["T_s"], 0.1, delta=0.005)
        with self.assertRaisesRegex(TypeError, "generator"):
            @energy_rt.region("tokens", self.monitor)
            def tokens():
                yield 1
        with self.assertRaisesRegex(ValueError, "NUL"):
            self.monitor.begin_window("a\0b")

    def test_flush_writes_a_signature_db_per_rank(self):
        with energy_rt.region("flushed", self.monitor):
            energy_rt.sim_run(0, COPY_BYTES / 10)
        with tempfile.TemporaryDirectory() as d:
            energy_rt.flush(os.path.join(d, "db-%r.json"))
            path = os.path.join(d, "db-%d.json" % energy_rt.rank())
            with open(path) as f:
                db = json.load(f)
            self.assertEqual(db["version"], 1)
            self.assertIn("flushed", [e["key"] for e in db["entries"]])
            self.assertIn("er_flush", db["generator"]["tool"])
            with self.assertRaisesRegex(energy_rt.EnergyRuntimeError,
                                        "No such file or directory"):
                energy_rt.flush(os.path.join(d, "missing", "x.json"))
            # Paths as pathlib gives them; anything else is a TypeError
            # that says so (not an AttributeError from inside).
            import pathlib
            energy_rt.flush(pathlib.Path(d) / "db-path.json")
            self.assertTrue(os.path.exists(os.path.join(d, "db-path.json")))
            for call in (energy_rt.flush, energy_rt.load_plan,
                         energy_rt.write_metrics):
                with self.assertRaisesRegex(TypeError, "needs a path"):
                    call(None)
                with self.assertRaisesRegex(TypeError, "needs a path"):
                    call(3)
                with self.assertRaisesRegex(ValueError, "non-empty path"):
                    call("")

    def _fresh(self, code, **env):
        """Runs `code` in a fresh interpreter (its own runtime)."""
        return subprocess.run([sys.executable, "-c", code],
                              env=dict(os.environ, **env),
                              capture_output=True, text=True)

    def test_settings_set_but_empty_or_missing_are_refused(self):
        # An empty ENERGY_RT_DEVICE is not "this process's GPU", and a
        # library named by ENERGY_RT_LIBRARY that is not there is not
        # replaced by another copy found on the way.
        r = self._fresh("import energy_rt; energy_rt.Monitor()",
                        ENERGY_RT_DEVICE="")
        self.assertIn("ENERGY_RT_DEVICE is set but empty", r.stderr)
        r = self._fresh("import energy_rt; energy_rt.Monitor(device="
                        "'sim:a100'); energy_rt.step()",
                        ENERGY_RT_METRICS_FILE="")
        self.assertIn("ENERGY_RT_METRICS_FILE is set but empty", r.stderr)
        # A device named in the call needs no environment.
        r = self._fresh("import energy_rt; energy_rt.Monitor(device="
                        "'sim:a100'); print('ok')", ENERGY_RT_DEVICE="")
        self.assertEqual(r.stdout.strip(), "ok", r.stderr)
        r = self._fresh("import energy_rt", ENERGY_RT_LIBRARY="/nonexistent.so")
        self.assertIn("ENERGY_RT_LIBRARY='/nonexistent.so' does not exist",
                      r.stderr)

    def test_a_shard_that_cannot_be_written_at_exit_is_kept(self):
        # ENERGY_RT_FLUSH_AT_EXIT on a full device: the exit's write fails,
        # and the measurements go to $TMPDIR instead, said where.
        with tempfile.TemporaryDirectory() as d:
            r = self._fresh(
                "import energy_rt as e; m = e.Monitor(device='sim:a100')\n"
                "with e.region('step', m):\n    e.sim_run(1e12, 1e9)\n",
                ENERGY_RT_FLUSH_AT_EXIT="/dev/full", TMPDIR=d, RANK="5")
            self.assertIn("'/dev/full': write failed: No space left on "
                          "device; the measurements were written to %s/"
                          "energy_rt-rank5-pid" % d, r.stderr)
            kept = [f for f in os.listdir(d) if f.startswith("energy_rt-")]
            self.assertEqual(len(kept), 1, r.stderr)
            with open(os.path.join(d, kept[0])) as f:
                self.assertEqual(json.load(f)["entries"][0]["key"], "step")

    @staticmethod
    def _plan_file(d, line):
        """A plan-clocks file of one `region mhz` line in folder `d`."""
        plan = os.path.join(d, "plan.txt")
        with open(plan, "w") as f:
            f.write(line + "\n")
        return plan

    def test_a_forked_rank_restores_its_clocks(self):
        # A rank started by multiprocessing's fork ends with os._exit, past
        # atexit: its finalizers restore the clock its plan set and drop its
        # restore record (the simulated clock watched through its mirror).
        with tempfile.TemporaryDirectory() as d:
            plan = self._plan_file(d, "F0_0 1005")
            clock, rec = os.path.join(d, "clock"), os.path.join(d, "rec")
            os.mkdir(rec)
            r = self._fresh(
                "import multiprocessing as mp\n"
                "def rank():\n"
                "    import energy_rt\n"
                "    energy_rt.load_plan(%r)\n"
                "    with energy_rt.region('F0_0'):\n"
                "        energy_rt.sim_run(1e9, 1e6)\n"
                "    print(open(%r).read().strip(), flush=True)\n"
                "p = mp.get_context('fork').Process(target=rank)\n"
                "p.start(); p.join(); print(p.exitcode)" % (plan, clock),
                ENERGY_RT_DEVICE="sim:a100", ENERGY_RT_SIM_STATE=clock,
                ENERGY_RT_STATE_DIR=rec, ENERGY_RT_ALLOW_CLOCK_CHANGES="1")
            self.assertEqual(r.stdout.split(), ["1005", "0"], r.stderr)
            with open(clock) as f:
                self.assertEqual(f.read().strip(), "1410")
            self.assertEqual(os.listdir(rec), [])

    def test_a_plans_power_cap_is_set_and_restored(self):
        # plan-clocks writes a plan's power cap as "# power_cap_W W";
        # er_plan_load sets it for the rest of the job (the simulated
        # device then draws at most that), and the guard restores the limit
        # in force before at exit (watched through the mirror's ".power").
        with tempfile.TemporaryDirectory() as d:
            plan = self._plan_file(d, "# power_cap_W 150\nw -")
            mirror, rec = os.path.join(d, "sim"), os.path.join(d, "rec")
            os.mkdir(rec)
            job = ("import energy_rt, os\n"
                   "m = energy_rt.Monitor(device='sim:a100')\n"
                   "%s"
                   "m.begin_window('w')\n"
                   "energy_rt.sim_run(5e12, 1e9)\n"
                   "r = m.end_window('w')\n"
                   "print(r.time, r.total_energy, flush=True)\n"
                   "p = %r\n"
                   "print(open(p).read().strip() if os.path.exists(p) "
                   "else 'none')\n")
            env = dict(ENERGY_RT_SIM_STATE=mirror, ENERGY_RT_STATE_DIR=rec,
                       ENERGY_RT_ALLOW_CLOCK_CHANGES="1")
            os.mkdir(os.path.join(d, "free"))
            free = self._fresh(job % ("energy_rt.load_plan(%r)\n"
                                      % self._plan_file(
                                          os.path.join(d, "free"), "w -"),
                                      mirror + ".power"), **env)
            capped = self._fresh(job % ("energy_rt.load_plan(%r)\n" % plan,
                                        mirror + ".power"), **env)
            for r in (free, capped):
                self.assertEqual(r.returncode, 0, r.stderr)
            t0, e0 = map(float, free.stdout.split()[:2])
            t1, e1 = map(float, capped.stdout.split()[:2])
            self.assertEqual(free.stdout.split()[2], "none")
            self.assertEqual(capped.stdout.split()[2], "150")
            self.assertGreater(e0 / t0, 150)  # uncapped, it draws more
            self.assertLessEqual(e1 / t1, 150 * (1 + 1e-9))
            self.assertGreater(t1, t0)
            with open(mirror + ".power") as f:
                self.assertEqual(f.read().strip(), "400")
            self.assertEqual(os.listdir(rec), [])
            # A signal the job handles resets the device before its handler
            # (the handler may end the process); the job goes on, and the
            # cap is set again at the runtime's next call, as the planned
            # clocks are at their next region.
            r = self._fresh(
                "import os, signal, energy_rt\n"
                "signal.signal(signal.SIGUSR1, lambda s, f: None)\n"
                "m = energy_rt.Monitor(device='sim:a100')\n"
                "energy_rt.load_plan(%r)\n"
                "os.kill(os.getpid(), signal.SIGUSR1)\n"
                "print(open(%r).read().strip())\n"
                "m.begin_window('w')\n"
                "energy_rt.sim_run(5e12, 1e9)\n"
                "r = m.end_window('w')\n"
                "print(open(%r).read().strip(), r.total_energy / r.time)\n"
                % (plan, mirror + ".power", mirror + ".power"), **env)
            self.assertEqual(r.returncode, 0, r.stderr)
            after, again = r.stdout.splitlines()
            self.assertEqual(after, "400")
            self.assertEqual(again.split()[0], "150")
            self.assertLessEqual(float(again.split()[1]), 150 * (1 + 1e-9))
            # Runs under the cap are their own DB entries, saying so (merged
            # with uncapped runs of the region they stay apart).
            db = os.path.join(d, "capped.json")
            r = self._fresh(
                "import json, energy_rt\n"
                "energy_rt.Monitor(device='sim:a100')\n"
                "for i in range(2):\n"
                "    with energy_rt.region('w'):\n"
                "        energy_rt.sim_run(5e12, 1e9)\n"
                "energy_rt.load_plan(%r)\n"
                "for i in range(2):\n"
                "    with energy_rt.region('w'):\n"
                "        energy_rt.sim_run(5e12, 1e9)\n"
                "energy_rt.flush(%r)\n"
                "for e in json.load(open(%r))['entries']:\n"
                "    print(e['key'], e['sm_mhz'], e['runs'], "
                "e.get('context', {}).get('power_limit_W'), "
                "e.get('context', {}).get('default_power_limit_W'))\n"
                % (plan, db, db), **env)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(sorted(r.stdout.splitlines()),
                             ["w 1410 2 150 400", "w 1410 2 None None"],
                             r.stderr)
            # After er_restore (the limit in force before is back) runs are
            # uncapped again, and recorded so.
            r = self._fresh(
                "import json, energy_rt\n"
                "energy_rt.Monitor(device='sim:a100')\n"
                "energy_rt.load_plan(%r)\n"
                "with energy_rt.region('w'):\n"
                "    energy_rt.sim_run(5e12, 1e9)\n"
                "energy_rt._lib.er_restore()\n"
                "print(open(%r).read().strip())\n"
                "for i in range(2):\n"
                "    with energy_rt.region('w'):\n"
                "        energy_rt.sim_run(5e12, 1e9)\n"
                "energy_rt.flush(%r)\n"
                "for e in json.load(open(%r))['entries']:\n"
                "    print(e['key'], e['runs'], "
                "e.get('context', {}).get('power_limit_W'))\n"
                % (plan, mirror + ".power", db, db), **env)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(r.stdout.splitlines()[0], "400")
            self.assertEqual(sorted(r.stdout.splitlines()[1:]),
                             ["w 1 150", "w 2 None"], r.stderr)
            # A second plan in the process: its cap replaces the first's,
            # and one without a cap leaves it in force -- both said.
            os.mkdir(os.path.join(d, "second"))
            second = self._plan_file(os.path.join(d, "second"),
                                     "# power_cap_W 250")
            os.mkdir(os.path.join(d, "none"))
            none = self._plan_file(os.path.join(d, "none"), "w -")
            r = self._fresh(
                "import energy_rt\n"
                "energy_rt.Monitor(device='sim:a100')\n"
                "energy_rt.load_plan(%r)\n"
                "energy_rt.load_plan(%r)\n"
                "print(open(%r).read().strip())\n"
                "energy_rt.load_plan(%r)\n"
                "print(open(%r).read().strip())\n"
                % (plan, second, mirror + ".power", none, mirror + ".power"),
                **env)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(r.stdout.split(), ["250", "250"], r.stderr)
            self.assertIn("set a power cap of 250 W in place of the 150 W a "
                          "plan loaded before set", r.stderr)
            self.assertIn("has no power cap: the 250 W a plan loaded before "
                          "set stays in force", r.stderr)
            # Refused, with its line, and the file's clocks not taken: a
            # cap outside the device's range, malformed, twice, or without
            # consent.
            cases = [("# power_cap_W 50\nw 1005", {},
                      "plan.txt:1: power cap 50 W outside sim:A100-SXM4 "
                      "(simulated)'s "
                      "range [100, 400] W"),
                     ("w 1005\n# power_cap_W 1 5", {},
                      "plan.txt:2: expected \"# power_cap_W W\""),
                     ("# power_cap_W 200\n# power_cap_W 250", {},
                      "plan.txt:2: a second power cap (first at line 1)"),
                     ("#power_cap_W 200\nw 1005", {},
                      "plan.txt:1: expected \"# power_cap_W W\" (a plan's "
                      "power cap, as plan-clocks writes it)"),
                     ("w 1005\n  # Power_Cap_W 200", {},
                      "plan.txt:2: expected \"# power_cap_W W\""),
                     ("# power_cap_W 200", {"ENERGY_RT_ALLOW_CLOCK_CHANGES":
                                            "0"},
                      "following a plan changes the power limit: set "
                      "ENERGY_RT_ALLOW_CLOCK_CHANGES=1")]
            for text, extra, message in cases:
                path = self._plan_file(d, text)
                r = self._fresh(
                    "import energy_rt\n"
                    "energy_rt.Monitor(device='sim:a100')\n"
                    "try:\n"
                    "    energy_rt.load_plan(%r)\n"
                    "except energy_rt.EnergyRuntimeError as e:\n"
                    "    print('refused', e)\n"
                    "print(*energy_rt.sm_clock())\n"
                    "with energy_rt.region('w'):\n"
                    "    print(*energy_rt.sm_clock())\n" % path,
                    **dict(env, **extra))
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertIn(message, r.stdout)
                self.assertEqual(r.stdout.splitlines()[-2:],
                                 ["1410 0", "1410 0"], r.stdout)
                with open(mirror + ".power") as f:
                    self.assertEqual(f.read().strip(), "400")

    def test_sm_clock_follows_the_plan_and_a_handled_signal(self):
        # sm_clock() reads the device's clock and the plan's switches; a
        # signal the job handles (a checkpoint trigger) resets the clock
        # before its handler and the next planned region sets it again.
        with tempfile.TemporaryDirectory() as d:
            plan, rec = self._plan_file(d, "fwd 810"), os.path.join(d, "rec")
            os.mkdir(rec)
            r = self._fresh(
                "import os, signal, energy_rt\n"
                "signal.signal(signal.SIGUSR1, lambda s, f: None)\n"
                "energy_rt.load_plan(%r)\n"
                "print(*energy_rt.sm_clock())\n"
                "with energy_rt.region('fwd'):\n"
                "    energy_rt.sim_run(1e9, 1e6)\n"
                "    print(*energy_rt.sm_clock())\n"
                "    os.kill(os.getpid(), signal.SIGUSR1)\n"
                "    print(*energy_rt.sm_clock())\n"
                "with energy_rt.region('fwd'):\n"
                "    print(*energy_rt.sm_clock())\n" % plan,
                ENERGY_RT_DEVICE="sim:a100", ENERGY_RT_STATE_DIR=rec,
                ENERGY_RT_ALLOW_CLOCK_CHANGES="1")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(r.stdout.splitlines(),
                             ["1410 0", "810 1", "1410 1", "810 2"], r.stderr)
            self.assertEqual(os.listdir(rec), [])

    def test_occurrence_lines_clock_each_begin_of_a_region(self):
        # "name[k]": the k-th begin of region name in an iteration (from 0,
        # counted again after every step()), before a plain "name" line; a
        # begin that neither names runs at the clock in force, and under a
        # complete plan (plan-clocks' "# every task") is said at exit, as
        # is a line no begin used.
        with tempfile.TemporaryDirectory() as d:
            plan = self._plan_file(
                d, "# every task\nfwd[0] 1410\nfwd[1] 810\nfwd[2] 1005\n"
                   "fwd[3] 705\nbwd 1005\n")
            r = self._fresh(
                "import energy_rt\n"
                "energy_rt.load_plan(%r)\n"
                "for it in range(2):\n"
                "    seen = []\n"
                "    for i in range(3 + it):\n"
                "        with energy_rt.region('fwd'):\n"
                "            seen.append(energy_rt.sm_clock()[0])\n"
                "        with energy_rt.region('bwd'):\n"
                "            seen.append(energy_rt.sm_clock()[0])\n"
                "    print(*seen)\n"
                "    energy_rt.step()\n" % plan,
                ENERGY_RT_DEVICE="sim:a100", ENERGY_RT_ALLOW_CLOCK_CHANGES="1")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(r.stdout.splitlines(),
                             ["1410 1005 810 1005 1005 1005",
                              "1410 1005 810 1005 1005 1005 705 1005"],
                             r.stderr)
            self.assertNotIn("region(s) ran that the plan", r.stderr)
            self.assertNotIn("never ran", r.stderr)
            # A fifth begin in an iteration: no line of its own, no plain
            # "fwd" line: said; and fwd[3] never ran.
            r = self._fresh(
                "import energy_rt\n"
                "energy_rt.load_plan(%r)\n"
                "for i in range(5):\n"
                "    with energy_rt.region('fwd'):\n"
                "        pass\n" % plan,
                ENERGY_RT_DEVICE="sim:a100", ENERGY_RT_ALLOW_CLOCK_CHANGES="1")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("1 region(s) ran that the plan's schedule does not "
                          "have (fwd[4] and on: 1 begin)", r.stderr)
            # (no step() at all: said, with what the lines count from)
            self.assertIn("which this job never called: call it once per "
                          "iteration", r.stderr)
            self.assertIn("1 of the 5 regions the plan names never ran (bwd)",
                          r.stderr)
            r = self._fresh(
                "import energy_rt\n"
                "energy_rt.load_plan(%r)\n"
                "for i in range(3):\n"
                "    with energy_rt.region('fwd'):\n"
                "        pass\n"
                "with energy_rt.region('bwd'):\n"
                "    pass\n" % plan,
                ENERGY_RT_DEVICE="sim:a100", ENERGY_RT_ALLOW_CLOCK_CHANGES="1")
            self.assertIn("1 of the 5 regions the plan names never ran "
                          "(fwd[3])", r.stderr)

    def test_a_nested_planned_region_gives_its_clock_back(self):
        # Inside planned "outer" (1410 MHz), planned "attn" sets 705 MHz;
        # at its end the clock is outer's again, so unplanned "mlp" after it
        # runs at 1410 MHz, not at attn's.
        with tempfile.TemporaryDirectory() as d:
            plan = self._plan_file(d, "# every task\nouter 1410\nattn 705\n")
            r = self._fresh(
                "import energy_rt\n"
                "energy_rt.load_plan(%r)\n"
                "seen = []\n"
                "for i in range(2):\n"
                "    with energy_rt.region('outer'):\n"
                "        with energy_rt.region('attn'):\n"
                "            seen.append(energy_rt.sm_clock()[0])\n"
                "        with energy_rt.region('mlp'):\n"
                "            seen.append(energy_rt.sm_clock()[0])\n"
                "    energy_rt.step()\n"
                "print(*seen)\n" % plan,
                ENERGY_RT_DEVICE="sim:a100", ENERGY_RT_ALLOW_CLOCK_CHANGES="1")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(r.stdout.split(),
                             ["705", "1410", "705", "1410"], r.stderr)
            self.assertNotIn("ran that the plan", r.stderr)

    def test_a_second_plan_file_replaces_the_first(self):
        # Two plans' lines merged would follow neither: the second file's
        # are the plan (said), the first's "x[k]" lines gone.
        with tempfile.TemporaryDirectory() as d:
            first, second = (os.path.join(d, n) for n in ("a.txt", "b.txt"))
            with open(first, "w") as f:
                f.write("x[0] 1410\nx[1] 1005\n")
            with open(second, "w") as f:
                f.write("x 705\n")
            r = self._fresh(
                "import energy_rt\n"
                "energy_rt.load_plan(%r)\n"
                "energy_rt.load_plan(%r)\n"
                "seen = []\n"
                "for i in range(2):\n"
                "    with energy_rt.region('x'):\n"
                "        seen.append(energy_rt.sm_clock()[0])\n"
                "print(*seen)\n" % (first, second),
                ENERGY_RT_DEVICE="sim:a100", ENERGY_RT_ALLOW_CLOCK_CHANGES="1")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(r.stdout.split(), ["705", "705"], r.stderr)
            self.assertIn("b.txt replaces the 2 region line(s) set before it",
                          r.stderr)

    def test_planned_regions_of_two_threads_at_once_are_said(self):
        with tempfile.TemporaryDirectory() as d:
            plan = self._plan_file(d, "a 1410\nb 705\n")
            r = self._fresh(
                "import threading, energy_rt\n"
                "energy_rt.load_plan(%r)\n"
                "inside, done = threading.Event(), threading.Event()\n"
                "def other():\n"
                "    with energy_rt.region('b'):\n"
                "        inside.set(); done.wait(10)\n"
                "t = threading.Thread(target=other); t.start()\n"
                "inside.wait(10)\n"
                "with energy_rt.region('a'):\n"
                "    pass\n"
                "done.set(); t.join()\n" % plan,
                ENERGY_RT_DEVICE="sim:a100", ENERGY_RT_ALLOW_CLOCK_CHANGES="1")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("planned region 'a' begins while planned region 'b' "
                          "is open on another thread", r.stderr)

    def test_a_handled_signal_drops_only_the_runs_it_reset(self):
        # Inside a planned region the reset before the program's handler is
        # a clock change (that run is in no clock's entry, said); where
        # nothing was changed (the plan loaded, no planned region run yet)
        # there is nothing to reset and every run keeps its clock.
        with tempfile.TemporaryDirectory() as d:
            plan, db = self._plan_file(d, "fwd 810"), os.path.join(d, "db.json")
            r = self._fresh(
                "import json, os, signal, energy_rt\n"
                "signal.signal(signal.SIGUSR1, lambda s, f: None)\n"
                "energy_rt.load_plan(%r)\n"
                "for name in ('w', 'fwd'):\n"
                "    for i in range(3):\n"
                "        with energy_rt.region(name):\n"
                "            energy_rt.sim_run(1e10, 1e8)\n"
                "            if i == 1:\n"
                "                os.kill(os.getpid(), signal.SIGUSR1)\n"
                "energy_rt.flush(%r)\n"
                "for e in json.load(open(%r))['entries']:\n"
                "    print(e['key'], e['sm_mhz'], e['runs'])\n"
                % (plan, db, db),
                ENERGY_RT_DEVICE="sim:a100", ENERGY_RT_STATE_DIR=d,
                ENERGY_RT_ALLOW_CLOCK_CHANGES="1")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(sorted(r.stdout.splitlines()),
                             ["fwd 810 2", "w 1410 3"], r.stderr)
            self.assertIn("1 run(s) of 'fwd' spanned a clock change the "
                          "runtime made", r.stderr)
            self.assertNotIn("of 'w' spanned", r.stderr)

    def test_a_zeus_port_without_reported_work_is_told(self):
        # Zeus's windows around PyTorch code, ported as they are to a
        # simulated device: nothing ran on it, every window measures 0 s and
        # 0 J -- said once, at the first window, naming what reports work.
        # After a sim_run, a free window (an optimizer step) is not said.
        r = self._fresh(
            "import energy_rt as e; m = e.Monitor(device='sim:a100')\n"
            "for _ in range(3):\n"
            "    m.begin_window('step'); x = m.end_window('step')\n"
            "print(x.time, x.total_energy)")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.split(), ["0.0", "0.0"])
        self.assertEqual(r.stderr.count(
            "window 'step' measured 0 s and 0 J: no work has been reported "
            "to sim:A100-SXM4 (simulated) (energy_rt.sim_run"), 1, r.stderr)
        r = self._fresh(
            "import energy_rt as e; m = e.Monitor(device='sim:a100')\n"
            "m.begin_window('fwd'); e.sim_run(1e12, 1e9); m.end_window('fwd')\n"
            "m.begin_window('opt'); m.end_window('opt')")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn("measured 0 s", r.stderr)

    def test_a_region_without_work_is_said_free(self):
        # In virtual time only charged work takes time: a window around
        # none (an optimizer step, a collective) is written as free, and
        # the flush says which, once; one that charged work is not named.
        with tempfile.TemporaryDirectory() as d:
            db = os.path.join(d, "db.json")
            r = self._fresh(
                "import energy_rt as e; m = e.Monitor(device='sim:a100')\n"
                "for _ in range(2):\n"
                "    m.begin_window('opt'); m.end_window('opt')\n"
                "    m.begin_window('fwd'); e.sim_run(1e12, 1e9)\n"
                "    m.end_window('fwd')\n"
                "e.flush(%r); e.flush(%r)" % (db, db))
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(r.stderr.count(
                "region 'opt' ran 2 time(s) and took no time on "
                "sim:A100-SXM4 (simulated)"), 1, r.stderr)
            self.assertNotIn("'fwd'", r.stderr)
            with open(db) as f:
                entries = {e["key"]: e for e in json.load(f)["entries"]}
            self.assertEqual(entries["opt"]["T_s"], 0)
            self.assertGreater(entries["fwd"]["T_s"], 0)

    def test_names_are_read_exactly(self):
        # A rank that is not one (two "abc" processes would share rank 0's
        # shard), a board the simulator does not model, a GPU index that
        # is not a number: refused, not read as something else.
        r = self._fresh("import energy_rt; energy_rt.Monitor(device="
                        "'sim:a100')", RANK="3x")
        self.assertIn("RANK='3x' is not a non-negative integer", r.stderr)
        r = self._fresh("import energy_rt; print(energy_rt.rank())", RANK="7")
        self.assertEqual(r.stdout.strip(), "7")
        for device in ("sim:a100-pcie", "sim:h200-nvl", "sim:a1000"):
            r = self._fresh("import energy_rt; energy_rt.Monitor(device=%r)"
                            % device)
            self.assertIn("unknown simulated device '%s'" % device, r.stderr)
        r = self._fresh("import energy_rt; energy_rt.Monitor(device="
                        "'cuda:abc')")
        self.assertIn("expected cuda:<index>", r.stderr)
        # A kind without its prefix, from the environment: the variable
        # and what it takes are named.
        r = self._fresh("import energy_rt; energy_rt.Monitor()",
                        ENERGY_RT_DEVICE="a100")
        self.assertIn("unknown device 'a100' (ENERGY_RT_DEVICE): expected "
                      "cuda:<index>, cuda (this process's GPU: "
                      "cuda:LOCAL_RANK) or a simulated one", r.stderr)
        # A real-time switch turned off is virtual time, not an error.
        for off in ("0", ""):
            r = self._fresh("import energy_rt; energy_rt.Monitor(); "
                            "print('ok')", ENERGY_RT_DEVICE="sim:a100",
                            ENERGY_RT_SIM_REALTIME=off)
            self.assertEqual(r.stdout.strip(), "ok", r.stderr)
        # The sim: prefix in any case, as its kind; a world size that is
        # no number is refused where it matters (an adaptive profile).
        r = self._fresh("import energy_rt\n"
                        "with energy_rt.region('x'): energy_rt.sim_run(0, 1)\n"
                        "print(energy_rt._state['device'])",
                        ENERGY_RT_DEVICE="SIM:A100")
        self.assertEqual(r.stdout.strip(), "sim:A100-SXM4 (simulated)",
                         r.stderr)
        r = self._fresh("import energy_rt; energy_rt.Monitor(device="
                        "'sim:a100')", ENERGY_RT_ALLOW_CLOCK_CHANGES="1",
                        ENERGY_RT_PROFILE_CLOCKS="adaptive:3",
                        WORLD_SIZE="abc")
        self.assertIn("WORLD_SIZE='abc' is not a number of ranks", r.stderr)

    def test_work_that_raises_is_not_recorded(self):
        # The window closes (it can be opened again), the exception goes on,
        # and the failed run joins no signature.
        with self.assertRaises(ZeroDivisionError):
            with energy_rt.region("fails", self.monitor):
                energy_rt.sim_run(0, COPY_BYTES / 10)
                1 / 0
        with energy_rt.region("fails", self.monitor) as r:
            energy_rt.sim_run(0, COPY_BYTES / 100)
        self.assertAlmostEqual(r.measurement.time, 0.01, delta=0.001)
        with tempfile.TemporaryDirectory() as d:
            energy_rt.flush(os.path.join(d, "db.json"))
            with open(os.path.join(d, "db.json")) as f:
                entry = [e for e in json.load(f)["entries"]
                         if e["key"] == "fails"][0]
        self.assertEqual(entry["runs"], 1)
        self.assertAlmostEqual(entry["T_s"], 0.01, delta=0.001)
        self.monitor.begin_window("dropped")
        self.monitor.abort_window("dropped")
        with self.assertRaisesRegex(energy_rt.EnergyRuntimeError, "not open"):
            self.monitor.abort_window("dropped")

    def test_flush_replaces_every_rank_mark(self):
        with energy_rt.region("marks", self.monitor):
            energy_rt.sim_run(0, COPY_BYTES / 100)
        with tempfile.TemporaryDirectory() as d:
            energy_rt.flush(os.path.join(d, "a%r-%r.json"))
            k = energy_rt.rank()
            self.assertTrue(os.path.exists(os.path.join(d, "a%d-%d.json"
                                                        % (k, k))))

    def test_plan_files_are_read_strictly(self):
        with tempfile.TemporaryDirectory() as d:
            def plan(name, data):
                path = os.path.join(d, name)
                with open(path, "wb") as f:
                    f.write(data)
                return path
            cases = [(d, "not a plan file (not a regular file)"),
                     (plan("dup.txt", b"F0_0 1410\nF0_0 1005\n"),
                      "dup.txt:2: 'F0_0' again (first at line 1)"),
                     (plan("nul.txt", b"F0_0 1410\n\0F1 1005\n"),
                      "nul.txt:2: a NUL byte"),
                     (plan("junk.txt", b"F0_0 14x0\n"),
                      "junk.txt:1: expected \"name sm_mhz\""),
                     (plan("kept.txt", b"F0_0 - 1005\n"),
                      "kept.txt:1: expected \"name sm_mhz\""),
                     (plan("kept2.txt", b"F0_0 -\nF0_0 1005\n"),
                      "kept2.txt:2: 'F0_0' again (first at line 1)"),
                     (plan("plan.json", b'{"version": 1, "schedules": []}'),
                      "plan.json: a JSON file, not a clock plan: a plan "
                      "exported by energy-translate --export-plan becomes "
                      "one device's \"region sm_mhz\" lines with energy-prof "
                      "plan-clocks")]
            for path, message in cases:
                r = self._fresh("import energy_rt; energy_rt.Monitor(device="
                                "'sim:a100'); energy_rt.load_plan(%r)" % path,
                                ENERGY_RT_ALLOW_CLOCK_CHANGES="1")
                self.assertNotEqual(r.returncode, 0, path)
                self.assertIn(message, r.stderr)
            # A profile sweeps the clocks: a plan would pin them.
            r = self._fresh("import energy_rt; energy_rt.Monitor(device="
                            "'sim:a100'); energy_rt.load_plan(%r)"
                            % plan("ok.txt", b"w 1005\n"),
                            ENERGY_RT_ALLOW_CLOCK_CHANGES="1",
                            ENERGY_RT_PROFILE_CLOCKS="1410,1005")
            self.assertNotEqual(r.returncode, 0)
            self.assertIn("this process is profiled "
                          "(ENERGY_RT_PROFILE_CLOCKS", r.stderr)
            # A plan for another GPU (plan-clocks writes its kind) is said.
            # (GPU models compared: NVML names an H100 "NVIDIA H100 80GB
            # HBM3", not "H100-SXM5".)
            for kind, warned in (("H100-SXM5", True), ("A100-SXM4", False),
                                 ("NVIDIA A100-SXM4-80GB", False)):
                r = self._fresh("import energy_rt; energy_rt.Monitor(device="
                                "'sim:a100'); energy_rt.load_plan(%r)"
                                % plan("kind.txt", b"# kind %s\nw 1005\n"
                                       % kind.encode()),
                                ENERGY_RT_ALLOW_CLOCK_CHANGES="1")
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertEqual("was planned for %s but this process "
                                 "measures sim:A100-SXM4" % kind in r.stderr,
                                 warned, r.stderr)
            # An empty plan changes nothing, and says so; %r is the rank.
            plan("empty-0.txt", b"# nothing\n")
            r = self._fresh("import energy_rt; energy_rt.Monitor(device="
                            "'sim:a100'); energy_rt.load_plan(%r)"
                            % os.path.join(d, "empty-%r.txt"),
                            ENERGY_RT_ALLOW_CLOCK_CHANGES="1", RANK="0")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("empty-0.txt names no region", r.stderr)
            # A file refused at its second line leaves no clock of its
            # first planned (its first line ran a region at 600 MHz).
            bad = plan("partial.txt", b"w 600\nv 777\n")
            r = self._fresh(
                "import energy_rt; m = energy_rt.Monitor(device='sim:a100')\n"
                "try:\n    energy_rt.load_plan(%r)\n"
                "except energy_rt.EnergyRuntimeError as e:\n    print(e)\n"
                "m.begin_window('w'); print('clock', m.end_window('w')"
                ".clock_mhz)" % bad, ENERGY_RT_ALLOW_CLOCK_CHANGES="1")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("partial.txt:2: region 'v': 777 MHz is not a supported SM "
                          "clock", r.stdout)
            self.assertIn("clock 1410", r.stdout)

    def test_zeus_names(self):
        # What a ZeusMonitor script uses: gpu_energy, sync_execution_with,
        # end_window(cancel=True).
        m = energy_rt.Monitor(gpu_indices=[0], sync_execution_with="torch")
        m.begin_window("zeus")
        energy_rt.sim_run(0, COPY_BYTES / 10)
        r = m.end_window("zeus")
        self.assertEqual(r.gpu_energy, {0: r.total_energy})
        m.begin_window("cancelled")
        energy_rt.sim_run(0, COPY_BYTES / 10)
        c = m.end_window("cancelled", cancel=True)
        self.assertEqual((c.time, c.total_energy), (0.0, 0.0))
        with self.assertRaisesRegex(energy_rt.EnergyRuntimeError, "not open"):
            m.end_window("cancelled")
        with self.assertRaisesRegex(ValueError, "PyTorch's CUDA work only"):
            energy_rt.Monitor(sync_execution_with="jax")
        for bad in ([-1], [True], ["0"], [0.0], "0", [0, 1]):
            with self.assertRaises(ValueError, msg=repr(bad)):
                energy_rt.Monitor(gpu_indices=bad)

        class Index:  # an integer type of another library (numpy.int64)
            def __index__(self):
                return 0
        self.assertEqual(energy_rt.Monitor(gpu_indices=[Index()]).gpu_indices,
                         [0])

    def test_zeus_arguments_and_fields(self):
        # A ZeusMonitor call's other arguments and fields: one index not in
        # a list, no CPUs, no log file; cpu/dram energy None.
        self.assertEqual(energy_rt.Monitor(gpu_indices=0).gpu_indices, [0])
        m = energy_rt.Monitor(gpu_indices=[0], cpu_indices=[],
                              approx_instant_energy=True)
        m.begin_window("w")
        r = m.end_window("w")
        self.assertEqual((r.cpu_energy, r.dram_energy), (None, None))
        with self.assertRaisesRegex(ValueError, "GPUs only"):
            energy_rt.Monitor(cpu_indices=[0])
        with self.assertRaisesRegex(ValueError, "log_file"):
            energy_rt.Monitor(log_file="zeus.csv")
        # A NUL in a device name would be cut there by ctypes (and the
        # process left measuring "sim:a100" under another name).
        with self.assertRaisesRegex(ValueError, "NUL"):
            energy_rt.Monitor(device="sim:a100\0x")

    def test_version(self):
        # __version__ is the library's version number ("energy 0.1.0 (git
        # ...)" -> "0.1.0").
        self.assertRegex(energy_rt.__version__, r"^[0-9]+\.[0-9]+\.[0-9]+$")
        self.assertIn(energy_rt.__version__, energy_rt.version())

    def test_zeus_positional_order_sync_and_one_gpu(self):
        # ZeusMonitor's positional order (gpu_indices, cpu_indices,
        # approx_instant_energy, log_file, sync_execution_with): a [] for
        # cpu_indices no longer switches synchronization off. A window
        # waits for the measured GPU's work, a cancelled one too (Zeus's);
        # a second Monitor cannot key the process's one device as another
        # GPU (a sum over GPUs would count it twice).
        job = ("import sys, types, energy_rt\n"
               "calls = []\n"
               "t = types.ModuleType('torch')\n"
               "t.cuda = types.SimpleNamespace(is_initialized=lambda: True, "
               "synchronize=lambda device=None: calls.append(device))\n"
               "sys.modules['torch'] = t\n"
               "m = energy_rt.Monitor([0], [], False, None, 'torch')\n"
               "m.begin_window('w'); m.end_window('w')\n"
               "m.begin_window('c'); m.end_window('c', cancel=True)\n"
               "print(len(calls))\n"
               "energy_rt._torch_sync(1); print(calls[-1])\n"
               "try:\n"
               "    energy_rt.Monitor(gpu_indices=[1])\n"
               "except ValueError as e:\n"
               "    print('refused:', e)\n")
        r = self._fresh(job, ENERGY_RT_DEVICE="sim:a100")
        lines = r.stdout.splitlines()
        self.assertEqual(lines[:2], ["4", "1"], r.stderr)
        self.assertIn("one GPU per process", lines[2])
        self.assertIn("(ENERGY_RT_DEVICE)", lines[2])
        # A first Monitor without indices keys the device as GPU 0 too; a
        # forked child's Monitors key its own device anew.
        job = ("import os, energy_rt\n"
               "energy_rt.Monitor()\n"
               "try:\n"
               "    energy_rt.Monitor(gpu_indices=[1]); print('accepted')\n"
               "except ValueError:\n"
               "    print('refused')\n"
               "pid = os.fork()\n"
               "if pid == 0:\n"
               "    m = energy_rt.Monitor(device='sim:h100', gpu_indices=[1])\n"
               "    os._exit(0 if m.gpu_indices == [1] else 3)\n"
               "print(os.waitpid(pid, 0)[1])\n")
        r = self._fresh(job, ENERGY_RT_DEVICE="sim:a100")
        self.assertEqual(r.stdout.split(), ["refused", "0"], r.stderr)
        # A Monitor given no index (a region's) keys the device as the
        # first Monitor did.
        r = self._fresh("import energy_rt\n"
                        "m = energy_rt.Monitor(gpu_indices=[1], "
                        "device='sim:a100')\n"
                        "with energy_rt.region('x'):\n"
                        "    energy_rt.sim_run(1e9, 0)\n"
                        "print(energy_rt.Monitor().gpu_indices)\n")
        self.assertEqual(r.stdout.strip(), "[1]", r.stderr)

    def test_region_reentrant(self):
        # A decorated function that calls itself, or two of its coroutines
        # at once on one thread: the outermost window measures, the calls
        # do not fail ("already open").
        import asyncio

        @energy_rt.region("rec", self.monitor)
        def rec(n):
            energy_rt.sim_run(0, COPY_BYTES / 10)
            return 0 if n == 0 else rec(n - 1)
        self.assertEqual(rec(3), 0)

        @energy_rt.region("co", self.monitor)
        async def co():
            await asyncio.sleep(0)
            energy_rt.sim_run(0, COPY_BYTES / 10)
            return 1

        async def both():
            return await asyncio.gather(co(), co())
        self.assertEqual(asyncio.run(both()), [1, 1])
        with tempfile.TemporaryDirectory() as d:
            energy_rt.flush(os.path.join(d, "db.json"))
            with open(os.path.join(d, "db.json")) as f:
                entries = {e["key"]: e for e in json.load(f)["entries"]}
        # rec: one window over its four levels (0.4 s). co: one window, the
        # first coroutine's (interleaved on one thread, the second's work
        # falls inside or after it as the event loop runs them).
        self.assertAlmostEqual(entries["rec"]["T_s"], 0.4, delta=0.02)
        self.assertEqual((entries["rec"]["runs"], entries["co"]["runs"]),
                         (1, 1))

    def test_no_torch_import_and_forked_children_write_beside(self):
        # A Monitor does not import torch for a program that does not (it
        # synchronizes torch's CUDA work only where torch is in use); a
        # forked child that measures writes PATH.pid<N> at its exit, not
        # over its parent's shard.
        r = self._fresh("import sys, energy_rt; energy_rt.Monitor("
                        "device='sim:a100'); print('torch' in sys.modules)")
        self.assertEqual(r.stdout.strip(), "False", r.stderr)
        job = ("import energy_rt, os, time\n"
               "m = energy_rt.Monitor(device='sim:a100')\n"
               "with energy_rt.region('parent', m):\n"
               "    energy_rt.sim_run(0, 1e9)\n"
               "if os.fork() == 0:\n"
               "    with energy_rt.region('child', m):\n"
               "        energy_rt.sim_run(0, 1e9)\n"
               "    time.sleep(0.5)\n"
               "    raise SystemExit(0)\n"
               "os.wait()\n")
        with tempfile.TemporaryDirectory() as d:
            r = self._fresh(job, ENERGY_RT_FLUSH_AT_EXIT=os.path.join(
                d, "%r.json"), RANK="0")
            self.assertEqual(r.returncode, 0, r.stderr)
            shards = {}
            for name in os.listdir(d):
                with open(os.path.join(d, name)) as f:
                    shards[name.split(".pid")[-1] if ".pid" in name
                           else name] = [e["key"] for e in
                                         json.load(f)["entries"]]
            self.assertEqual(shards.pop("0.json"), ["parent"], shards)
            self.assertEqual(list(shards.values()), [["child"]])

    def test_sigma_d_is_the_runs_spread(self):
        # A flushed entry's sigma_d is the standard deviation of the runs'
        # own d = E - s T (their energy and time vary together: leaving out
        # Cov(E, T) understated it, or clipped it to 0).
        ds = []
        for _ in range(8):
            self.monitor.begin_window("sigd")
            energy_rt.sim_run(1e12, 1e8)
            x = self.monitor.end_window("sigd")
            ds.append(x.total_energy - x.s * x.time)
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "db.json")
            energy_rt.flush(path)
            with open(path) as f:
                e = next(e for e in json.load(f)["entries"]
                         if e["key"] == "sigd")
        mean = sum(ds) / len(ds)
        sd = (sum((x - mean) ** 2 for x in ds) / (len(ds) - 1)) ** 0.5
        self.assertGreater(sd, 0)
        self.assertAlmostEqual(e["sigma_d_J"], sd, delta=1e-9 * mean)

    def test_spawned_workers_take_the_parents_device_and_path(self):
        # A spawned worker of a process measuring sim:h100 measures sim:h100
        # too (not the default GPU), and its own flush(path) writes beside
        # the parent's shard.
        job = ("import multiprocessing as mp, sys, energy_rt\n"
               "def work(path):\n"
               "    with energy_rt.region('w'):\n"
               "        energy_rt.sim_run(0, 1e9)\n"
               "    energy_rt.flush(path)\n"
               "if __name__ == '__main__':\n"
               "    with energy_rt.region('p', energy_rt.Monitor(\n"
               "            device='sim:h100')):\n"
               "        energy_rt.sim_run(0, 1e9)\n"
               "    energy_rt.flush(sys.argv[1])\n"
               "    for method in ('spawn', 'fork', 'forkserver'):\n"
               "        p = mp.get_context(method).Process(target=work,\n"
               "                                           args=(sys.argv[1],))\n"
               "        p.start()\n"
               "        p.join()\n"
               "        assert p.exitcode == 0, (method, p.exitcode)\n")
        r, docs = run_job(job, ["{out}/db-%r.json"],
                          drop=["ENERGY_RT_DEVICE"], RANK="0")
        self.assertEqual(r.returncode, 0, r.stderr)
        shards = {name: (doc["device"], [e["key"] for e in doc["entries"]])
                  for name, doc in docs.items()}
        self.assertEqual(shards.pop("db-0.json")[1], ["p"])
        self.assertEqual(len(shards), 3, shards)
        for name, (device, keys) in shards.items():
            self.assertTrue(name.startswith("db-0.json.pid"), name)
            self.assertIn("H100", device)
            self.assertEqual(keys, ["w"])

    def test_workers_draw_their_own_noise(self):
        # Workers of one rank running the same work on the simulated device
        # measure their own noise (seeded by their pid too), so their
        # shards differ and energy-prof merge does not take them for one
        # shard given twice; the rank's own noise stays seeded by the rank.
        job = ("import multiprocessing as mp, sys, energy_rt\n"
               "def work():\n"
               "    with energy_rt.region('w'):\n"
               "        energy_rt.sim_run(1e12, 1e9)\n"
               "if __name__ == '__main__':\n"
               "    with energy_rt.region('p', energy_rt.Monitor(\n"
               "            device='sim:a100')):\n"
               "        energy_rt.sim_run(1e12, 1e9)\n"
               "    for method in ('fork', 'fork', 'spawn', 'spawn'):\n"
               "        p = mp.get_context(method).Process(target=work)\n"
               "        p.start()\n"
               "        p.join()\n"
               "        assert p.exitcode == 0, (method, p.exitcode)\n")
        runs = [run_job(job, RANK="0", ENERGY_RT_FLUSH_AT_EXIT="{out}/%r.json")
                for _ in range(2)]
        parents, workers = [], []
        for r, docs in runs:
            self.assertEqual(r.returncode, 0, r.stderr)
            for name, doc in docs.items():
                (e,) = doc["entries"]
                (parents if name == "0.json" else workers).append(
                    (e["key"], e["d_J"]))
        self.assertEqual(len(workers), 8, workers)
        self.assertEqual({k for k, _ in workers}, {"w"})
        self.assertEqual(len({d for _, d in workers}), 8, workers)
        self.assertEqual(parents[0], parents[1])
        # A seed that is no integer is refused by name.
        r = self._fresh("import energy_rt; energy_rt.Monitor(device='sim:a100')",
                        ENERGY_RT_SIM_SEED="12x")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("ENERGY_RT_SIM_SEED='12x' is not a non-negative integer",
                      r.stderr)

    def test_multiprocessing_workers_write_beside(self):
        # multiprocessing's workers (a DataLoader's among them) under each
        # start method: forked and forkserver ones end by os._exit, which
        # skips atexit; spawned ones import the module afresh with the
        # parent's environment. Each writes PATH.pid<N> as it ends.
        job = ("import multiprocessing as mp, sys, energy_rt\n"
               "def work(tag):\n"
               "    with energy_rt.region('child-' + tag,\n"
               "                          energy_rt.Monitor(device='sim:a100')):\n"
               "        energy_rt.sim_run(0, 1e9)\n"
               "if __name__ == '__main__':\n"
               "    with energy_rt.region('parent',\n"
               "                          energy_rt.Monitor(device='sim:a100')):\n"
               "        energy_rt.sim_run(0, 1e9)\n"
               "    for method in ('fork', 'spawn', 'forkserver'):\n"
               "        p = mp.get_context(method).Process(target=work,\n"
               "                                           args=(method,))\n"
               "        p.start()\n"
               "        p.join()\n"
               "        assert p.exitcode == 0, (method, p.exitcode)\n")
        r, docs = run_job(job, RANK="0",
                          ENERGY_RT_FLUSH_AT_EXIT="{out}/%r.json")
        self.assertEqual(r.returncode, 0, r.stderr)
        shards = {name: [e["key"] for e in doc["entries"]]
                  for name, doc in docs.items()}
        self.assertEqual(shards.pop("0.json"), ["parent"], shards)
        self.assertTrue(all(n.startswith("0.json.pid") for n in shards),
                        shards)
        self.assertEqual(sorted(k for v in shards.values() for k in v),
                         ["child-fork", "child-forkserver", "child-spawn"])
        # Ranks that a launcher measuring nothing starts (as
        # torch.multiprocessing.spawn does) are processes of their own: each
        # writes its rank's shard, under every start method.
        ranks = ("import multiprocessing as mp, os, sys, energy_rt\n"
                 "def rank(r):\n"
                 "    os.environ['RANK'] = str(r)\n"
                 "    with energy_rt.region('r%d' % r,\n"
                 "                          energy_rt.Monitor(device='sim:a100')):\n"
                 "        energy_rt.sim_run(0, 1e9)\n"
                 "if __name__ == '__main__':\n"
                 "    ps = [mp.get_context(sys.argv[1]).Process(target=rank,\n"
                 "                                              args=(r,))\n"
                 "          for r in range(2)]\n"
                 "    for p in ps:\n"
                 "        p.start()\n"
                 "    for p in ps:\n"
                 "        p.join()\n")
        for method in ("fork", "spawn", "forkserver"):
            r, docs = run_job(ranks, [method],
                              ENERGY_RT_FLUSH_AT_EXIT="{out}/%r.json")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(sorted(docs), ["0.json", "1.json"], method)

    def test_one_device_under_its_names(self):
        # The device this process measures, under another of its names, is
        # the same device; another device is refused.
        for name in ("sim:A100", "sim:a100-sxm4", "sim:A100-SXM4"):
            self.assertEqual(energy_rt.Monitor(device=name).device,
                             self.monitor.device)
        with self.assertRaisesRegex(energy_rt.EnergyRuntimeError,
                                    "already measures"):
            energy_rt.Monitor(device="sim:h100")
        r = self._fresh("import energy_rt; energy_rt.Monitor(); "
                        "energy_rt.Monitor(device='sim:a100'); print('ok')",
                        ENERGY_RT_DEVICE="sim:A100")
        self.assertEqual(r.stdout.strip(), "ok", r.stderr)

    def test_own_gpu_follows_what_the_process_is_shown(self):
        # "cuda" and a Monitor without a device take this process's GPU: a
        # process shown one GPU (Slurm's --gpus-per-task) has it as index
        # 0 whatever its LOCAL_RANK (cuda:3 does not exist there); one shown
        # several takes torchrun's LOCAL_RANK.
        saved = {k: os.environ.get(k)
                 for k in ("CUDA_VISIBLE_DEVICES", "LOCAL_RANK")}
        try:
            for visible, local, want in (("5", "3", 0), ("GPU-8f2e", "2", 0),
                                         ("4,5,6,7", "3", 3), (None, "2", 2),
                                         (None, None, 0), ("0,1", "x", 0)):
                for key, value in (("CUDA_VISIBLE_DEVICES", visible),
                                   ("LOCAL_RANK", local)):
                    if value is None:
                        os.environ.pop(key, None)
                    else:
                        os.environ[key] = value
                self.assertEqual(energy_rt._own_gpu_index(), want,
                                 (visible, local))
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value

    def test_runs_across_a_clock_change_have_no_clock(self):
        # A plan sets 1005 MHz at 'inner', inside 'outer' (begun at the
        # default 1410 MHz): 'outer''s first run spans the change; its
        # second begins at 1005 and stays there. The DB holds one clock per
        # signature: 'outer' once at 1005 MHz, 'inner' twice at 1005 MHz;
        # the run across is in the totals (er_result) and said at flush.
        with tempfile.TemporaryDirectory() as d:
            plan = os.path.join(d, "plan.txt")
            with open(plan, "w") as f:
                f.write("inner 1005\n")
            db = os.path.join(d, "db.json")
            r = self._fresh(
                "import energy_rt\n"
                "energy_rt.Monitor(device='sim:a100')\n"
                "energy_rt.load_plan(%r)\n"
                "for _ in range(2):\n"
                "    with energy_rt.region('outer'):\n"
                "        energy_rt.sim_run(1e12, 1e9)\n"
                "        with energy_rt.region('inner'):\n"
                "            energy_rt.sim_run(1e12, 1e9)\n"
                "import ctypes\n"
                "e, t, n = ctypes.c_double(), ctypes.c_double(), ctypes.c_uint()\n"
                "energy_rt._lib.er_result(b'outer', ctypes.byref(e),\n"
                "                         ctypes.byref(t), ctypes.byref(n))\n"
                "print(n.value)\n"
                "energy_rt.flush(%r)\n" % (plan, db),
                ENERGY_RT_ALLOW_CLOCK_CHANGES="1")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(r.stdout.strip(), "2", r.stderr)
            with open(db) as f:
                entries = sorted((e["key"], e["sm_mhz"], e["runs"])
                                 for e in json.load(f)["entries"])
            self.assertEqual(entries, [("inner", 1005, 2), ("outer", 1005, 1)])
            self.assertIn("1 run(s) of 'outer' spanned a clock change",
                          r.stderr)

    def test_first_calls_initialize_or_say_why(self):
        # load_plan and sim_run as a process's first call measure the
        # environment's device (as step does); flush has nothing to write.
        with tempfile.TemporaryDirectory() as d:
            plan = os.path.join(d, "plan.txt")

            def planned(code):
                """`code` in a fresh process that loaded the plan first."""
                return self._fresh(
                    "import energy_rt; energy_rt.load_plan(%r)\n" % plan +
                    code, ENERGY_RT_DEVICE="sim:a100",
                    ENERGY_RT_ALLOW_CLOCK_CHANGES="1")

            with open(plan, "w") as f:
                f.write("F0_0 1005\n")
            r = planned("energy_rt.sim_run(1e9, 1e6); print('ok')")
            self.assertEqual(r.stdout.strip(), "ok", r.stderr)
            # The plan's region never ran: said at exit.
            self.assertIn("none of the 1 regions the plan names (F0_0) ran",
                          r.stderr)
            # One misspelt name among regions that ran is said too.
            with open(plan, "w") as f:
                f.write("F0_0 1005\nF0_1 1005\n")
            r = planned("with energy_rt.region('F0_0'): pass")
            self.assertIn("1 of the 2 regions the plan names never ran "
                          "(F0_1): their clocks were never set", r.stderr)
            # A file naming every task (plan-clocks): a region outside it
            # (a job of more microbatches than the plan's) is said, one
            # kept at the clock in force ("-") is not.
            with open(plan, "w") as f:
                f.write("# every task of gpu\nF0_0 1005\nopt -\n")
            # A window around planned regions (an iteration's) is not one.
            r = planned("with energy_rt.region('iteration'):\n"
                        "    for name in ('F0_0', 'opt', 'F0_1'):\n"
                        "        with energy_rt.region(name): pass")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("1 region(s) ran that the plan's schedule does not "
                          "have (F0_1): each ran at the clock in force when "
                          "it began", r.stderr)
            self.assertNotIn("opt", r.stderr)
            self.assertNotIn("iteration", r.stderr)
            # Nor a region nested inside a planned one (it ran at that
            # region's clock); one after it still is.
            r = planned("with energy_rt.region('F0_0'):\n"
                        "    with energy_rt.region('gemm'):\n"
                        "        energy_rt.sim_run(1e9, 1e6)\n"
                        "with energy_rt.region('after'): pass")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("1 region(s) ran that the plan's schedule does not "
                          "have (after)", r.stderr)
            self.assertNotIn("gemm", r.stderr)
            # A plan that keeps every clock ("-" lines only) is checked too.
            with open(plan, "w") as f:
                f.write("# every task of gpu\nF0_0 -\n")
            r = planned("for name in ('F0_0', 'X'):\n"
                        "    with energy_rt.region(name): pass")
            self.assertIn("1 region(s) ran that the plan's schedule does not "
                          "have (X)", r.stderr)
            r = self._fresh("import energy_rt; energy_rt.flush(%r)"
                            % os.path.join(d, "x.json"))
            self.assertIn("nothing to flush: this process has not measured "
                          "yet", r.stderr)

    def test_flush_at_exit_on_every_way_out(self):
        # ENERGY_RT_FLUSH_AT_EXIT writes the shard when the job ends by an
        # exception, Ctrl-C (KeyboardInterrupt: Python then ends itself by
        # SIGINT, past the C library's atexit) and SIGTERM (torchrun's stop);
        # a path that cannot be written is refused at start-up.
        import signal
        import time
        # (SIGINT as in an interactive process: lit's workers ignore it,
        # and children inherit that.)
        job = ("import energy_rt, signal, sys, time\n"
               "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
               "import threading\n"
               "def work():\n"
               "    m = energy_rt.Monitor()\n"
               "    with energy_rt.region('work', m):\n"
               "        energy_rt.sim_run(0, 1e9)\n"
               "if sys.argv[2] == 'thread':\n"
               "    t = threading.Thread(target=work); t.start(); t.join()\n"
               "else:\n"
               "    work()\n"
               "print('measured', flush=True)\n"
               "if sys.argv[1] == 'raise': raise RuntimeError('job failed')\n"
               "time.sleep(30)\n")
        with tempfile.TemporaryDirectory() as d:
            env = dict(os.environ, ENERGY_RT_DEVICE="sim:a100",
                       ENERGY_RT_FLUSH_AT_EXIT=os.path.join(d, "%r.json"),
                       RANK="0")
            # (The first measurement in a thread: handlers are set from
            # the main thread only, so energy_rt sets them at import.)
            for how, where in (("raise", "main"), (signal.SIGINT, "main"),
                               (signal.SIGTERM, "main"),
                               (signal.SIGHUP, "main"),
                               (signal.SIGTERM, "thread"),
                               (signal.SIGHUP, "thread")):
                shard = os.path.join(d, "0.json")
                if os.path.exists(shard):
                    os.unlink(shard)
                # (SIGHUP as in a terminal's process: a test run under
                # nohup ignores it, and children inherit that.)
                p = subprocess.Popen(
                    [sys.executable, "-c", job,
                     how if isinstance(how, str) else "wait", where],
                    env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                    text=True, preexec_fn=lambda: signal.signal(
                        signal.SIGHUP, signal.SIG_DFL))
                self.assertEqual(p.stdout.readline().strip(), "measured")
                if not isinstance(how, str):
                    time.sleep(0.2)
                    p.send_signal(how)
                _, err = p.communicate(timeout=60)
                self.assertNotEqual(p.returncode, 0, (how, where, err))
                with open(shard) as f:
                    keys = [e["key"] for e in json.load(f)["entries"]]
                self.assertEqual(keys, ["work"], (how, where))
            r = self._fresh("import energy_rt; energy_rt.Monitor()",
                            ENERGY_RT_DEVICE="sim:a100",
                            ENERGY_RT_FLUSH_AT_EXIT=os.path.join(
                                d, "missing", "x.json"))
            self.assertIn("ENERGY_RT_FLUSH_AT_EXIT: '%s'"
                          % os.path.join(d, "missing", "x.json"), r.stderr)
            # A shard that cannot be written at exit (its folder removed
            # during the job) is said once: Python's exit path and the C
            # library's both flush, and the second does not repeat the
            # first.
            gone = os.path.join(d, "gone")
            os.mkdir(gone)
            r = self._fresh("import energy_rt, os\n"
                            "with energy_rt.region('w', energy_rt.Monitor()):\n"
                            "    energy_rt.sim_run(0, 1e6)\n"
                            "os.rmdir(%r)\n" % gone,
                            ENERGY_RT_DEVICE="sim:a100",
                            ENERGY_RT_FLUSH_AT_EXIT=os.path.join(gone,
                                                                 "x.json"))
            self.assertEqual(r.stderr.count("ENERGY_RT_FLUSH_AT_EXIT"), 1,
                             r.stderr)
            # The exit-through-handlers set at import are not a forked
            # child's: multiprocessing's terminate() ends it as by default.
            r = self._fresh("import multiprocessing as mp, time, energy_rt\n"
                            "mp.set_start_method('fork')\n"
                            "q = mp.Process(target=time.sleep, args=(30,))\n"
                            "q.start(); time.sleep(0.3); q.terminate()\n"
                            "q.join(10); print('exit', q.exitcode)",
                            ENERGY_RT_DEVICE="sim:a100",
                            ENERGY_RT_FLUSH_AT_EXIT=os.path.join(d, "f.json"))
            self.assertIn("exit -15", r.stdout, r.stderr)
            # Set but empty (an unset variable expanded): refused at once,
            # not found out at exit with the job's measurements lost.
            r = self._fresh("import energy_rt; energy_rt.Monitor()",
                            ENERGY_RT_DEVICE="sim:a100",
                            ENERGY_RT_FLUSH_AT_EXIT="")
            self.assertNotEqual(r.returncode, 0)
            self.assertIn("ENERGY_RT_FLUSH_AT_EXIT is set but empty", r.stderr)

    def test_flush_names_the_regions_still_open(self):
        # A window left open (here by a thread that ended without closing
        # it) is not in a flush: said, not dropped silently.
        with tempfile.TemporaryDirectory() as d:
            r = self._fresh(
                "import energy_rt, threading\n"
                "m = energy_rt.Monitor()\n"
                "def leave():\n"
                "    m.begin_window('left_open'); energy_rt.sim_run(0, 1e6)\n"
                "t = threading.Thread(target=leave); t.start(); t.join()\n"
                "with energy_rt.region('done', m):\n"
                "    energy_rt.sim_run(0, 1e6)\n"
                "energy_rt.flush(%r)\n" % os.path.join(d, "db.json"),
                ENERGY_RT_DEVICE="sim:a100")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("1 region(s) open at this flush ('left_open'): "
                          "their current runs are not in it", r.stderr)

    def test_a_rank_waiting_for_its_peers_still_stops_on_sigterm(self):
        # Adaptive profiling: after each clock a rank waits (in C, up to 10
        # minutes) for every rank's energy. torchrun stops the ranks with
        # SIGTERM when one fails; Python's handler only runs once the C call
        # returns, so the wait must end on the signal, and the shard be
        # written on the way out.
        import signal
        import time
        job = ("import energy_rt\n"
               "for i in range(6):\n"
               "    with energy_rt.region('work'):\n"
               "        energy_rt.sim_run(1e12, 1e9)\n"
               "    print('step', i, flush=True)\n"
               "    energy_rt.step()\n")
        with tempfile.TemporaryDirectory() as d:
            env = dict(os.environ, ENERGY_RT_DEVICE="sim:a100",
                       ENERGY_RT_ALLOW_CLOCK_CHANGES="1",
                       ENERGY_RT_PROFILE_CLOCKS="adaptive:3",
                       ENERGY_RT_PROFILE_WARMUP="1",
                       ENERGY_RT_PROFILE_ITERATIONS="1",
                       ENERGY_RT_PROFILE_SYNC_DIR=d, WORLD_SIZE="2", RANK="0",
                       ENERGY_RT_FLUSH_AT_EXIT=os.path.join(d, "db-%r.json"))
            p = subprocess.Popen([sys.executable, "-c", job], env=env,
                                 stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True)
            # Step 1 ends the first profiled clock: the wait for rank 1,
            # which never comes.
            self.assertEqual(p.stdout.readline().strip(), "step 0")
            self.assertEqual(p.stdout.readline().strip(), "step 1")
            time.sleep(0.5)
            t0 = time.monotonic()
            p.send_signal(signal.SIGTERM)
            _, err = p.communicate(timeout=60)
            self.assertLess(time.monotonic() - t0, 10, err)
            self.assertEqual(p.returncode, 128 + signal.SIGTERM, err)
            with open(os.path.join(d, "db-0.json")) as f:
                keys = {e["key"] for e in json.load(f)["entries"]}
            self.assertEqual(keys, {"work"})

    def test_says_clearly_when_the_library_is_missing(self):
        with tempfile.TemporaryDirectory() as d:
            pkg = os.path.join(d, "energy_rt")
            os.mkdir(pkg)
            src = os.path.join(os.path.dirname(energy_rt.__file__), "__init__.py")
            with open(src) as f, open(os.path.join(pkg, "__init__.py"), "w") as g:
                g.write(f.read())
            env = dict(os.environ, PYTHONPATH=d)
            env.pop("ENERGY_RT_LIBRARY", None)
            r = subprocess.run([sys.executable, "-c", "import energy_rt"],
                               env=env, capture_output=True, text=True)
            self.assertNotEqual(r.returncode, 0)
            self.assertIn("cannot find libenergy_rt.so.0; looked in:", r.stderr)
            self.assertIn("set PYTHONPATH=build/python", r.stderr)


if __name__ == "__main__":
    unittest.main()
