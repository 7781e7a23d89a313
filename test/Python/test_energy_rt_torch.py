"""energy_rt.torch against first principles: the FLOP and byte counts of
python/energy_rt/torch.py's docstring worked by hand, and the regions' time
on the simulated A100 against its model (runtime/SimDevice.h: kernel time
max(flops / (312e12 f / 1410), bytes / 2.04e12) + 5 us at f MHz)."""
import os
import unittest
import warnings

import torch

import energy_rt
import energy_rt.torch as ert
from test_energy_rt import run_job

PEAK, BW, LAUNCH = 312e12, 2.04e12, 5e-6


class CountTest(unittest.TestCase):
    def test_linear(self):
        lin = torch.nn.Linear(64, 256)
        x = torch.zeros(2, 16, 64)
        flops, nbytes = ert.count(lin, (x,))
        rows = 32
        self.assertEqual(flops, 2 * rows * 64 * 256 + rows * 256)
        self.assertEqual(nbytes, 4 * (rows * 64 + 64 * 256 + 256 + rows * 256))

    def test_attention(self):
        E, H, L, batch = 32, 4, 10, 3
        mha = torch.nn.MultiheadAttention(E, H, batch_first=True)
        q = torch.zeros(batch, L, E)
        flops, nbytes = ert.count(mha, (q, q, q))
        want = batch * (2 * L * E * 3 * E + 2 * L * L * E + 5 * H * L * L +
                        2 * L * L * E + 2 * L * E * E)
        self.assertEqual(flops, want)
        params = 4 * (3 * E * E + 3 * E + E * E + E)
        self.assertEqual(nbytes, 4 * (4 * batch * L * E) +
                         3 * batch * H * L * L * 4 + params)
        # Sequence-first: the same work.
        mha_sf = torch.nn.MultiheadAttention(E, H)
        qs = torch.zeros(L, batch, E)
        self.assertEqual(ert.count(mha_sf, (qs, qs, qs))[0], want)

    def test_unbatched_attention_is_a_batch_of_one(self):
        mha = torch.nn.MultiheadAttention(16, 2)
        q2, q3 = torch.zeros(7, 16), torch.zeros(7, 1, 16)
        self.assertEqual(ert.count(mha, (q2, q2, q2))[0],
                         ert.count(mha, (q3, q3, q3))[0])

    def test_elementwise_norm_embedding_and_unknown(self):
        x = torch.zeros(4, 8)
        self.assertEqual(ert.count(torch.nn.GELU(), (x,)), (8 * 32, 2 * 4 * 32))
        self.assertEqual(ert.count(torch.nn.ReLU(), (x,)), (32, 2 * 4 * 32))
        ln = torch.nn.LayerNorm(8)
        self.assertEqual(ert.count(ln, (x,)), (8 * 32, 4 * (2 * 32 + 16)))
        emb = torch.nn.Embedding(100, 16)
        ids = torch.zeros(3, 5, dtype=torch.long)
        self.assertEqual(ert.count(emb, (ids,)), (0, 2 * 15 * 16 * 4))
        self.assertIsNone(ert.count(torch.nn.Conv1d(2, 2, 3), (x,)))


class StageTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.mon = energy_rt.Monitor(device="sim:a100")

    def test_regions_time_the_charged_kernels(self):
        # One compute-bound Linear: 2 x 64 x 64 x 64 FLOPs x 1e7.
        lin = torch.nn.Linear(64, 64, bias=False)
        scale = (1e7, 1.0)
        stage = ert.Stage(lin, 2, work_scale=scale, monitor=self.mon)
        x = torch.zeros(64, 64, requires_grad=True)
        out = stage(x)
        flops = 2 * 64 * 64 * 64 * scale[0]
        nbytes = 4 * 3 * 64 * 64
        model = max(flops / PEAK, nbytes / BW) + LAUNCH
        fwd = stage.last_forward
        self.assertEqual(fwd.name, "stage2.forward")
        self.assertAlmostEqual(fwd.time / model, 1, delta=0.05)  # 1 % noise
        self.assertGreater(fwd.d, 0)
        stage.backward(out, torch.ones_like(out))
        bwd = stage.last_backward
        self.assertEqual(bwd.name, "stage2.backward")
        model_b = max(2 * flops / PEAK, 2 * nbytes / BW) + LAUNCH
        self.assertAlmostEqual(bwd.time / model_b, 1, delta=0.05)
        self.assertIsNotNone(x.grad)  # autograd ran

    def test_windows_are_profiler_ranges_while_it_records(self):
        # A Stage's passes, and any window, appear in PyTorch's profiler
        # as ranges of their names (a Kineto trace's user_annotation, what
        # energy-translate --import-kineto --regions groups kernels by),
        # nested as opened; none while no profiler records.
        import json
        import tempfile
        from torch.profiler import ProfilerActivity, profile
        lin = torch.nn.Linear(8, 8)
        stage = ert.Stage(lin, 1, monitor=self.mon)
        x = torch.zeros(4, 8, requires_grad=True)
        with profile(activities=[ProfilerActivity.CPU]) as prof:
            self.mon.begin_window("step")
            out = stage(x)
            stage.backward(out, torch.ones_like(out))
            self.mon.end_window("step")
            with energy_rt.region("optimizer", monitor=self.mon):
                pass
            self.mon.begin_window("dropped")
            self.mon.abort_window("dropped")
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "trace.json")
            prof.export_chrome_trace(path)
            with open(path) as f:
                data = json.load(f)
        # Kineto's object, or the legacy profiler's bare array (a torch
        # built without Kineto, as Debian's).
        events = data["traceEvents"] if isinstance(data, dict) else data
        ranges = {e["name"]: e for e in events if e.get("ph") == "X"}
        for name in ("step", "stage1.forward", "stage1.backward",
                     "optimizer", "dropped"):
            self.assertIn(name, ranges)
        step, fwd, bwd = (ranges[n] for n in ("step", "stage1.forward",
                                              "stage1.backward"))
        self.assertLessEqual(step["ts"], fwd["ts"])
        self.assertLessEqual(fwd["ts"] + fwd["dur"], bwd["ts"])
        self.assertLessEqual(bwd["ts"] + bwd["dur"],
                             step["ts"] + step["dur"])
        self.assertEqual(self.mon._thread().ranges, {})
        # A synchronization that fails at a window's end (a CUDA error
        # surfaces there) leaves no range open; the window stays open.
        mon = energy_rt.Monitor(device="sim:a100")

        def failing_sync():
            raise RuntimeError("CUDA error: an illegal memory access")
        with profile(activities=[ProfilerActivity.CPU]):
            mon.begin_window("failing")
            self.assertIn("failing", mon._thread().ranges)
            mon._sync = failing_sync
            with self.assertRaises(RuntimeError):
                mon.end_window("failing")
            self.assertEqual(mon._thread().ranges, {})
            mon._sync = None
            mon.abort_window("failing")
        # Outside the profiler a window opens no range.
        self.mon.begin_window("quiet")
        self.assertEqual(self.mon._thread().ranges, {})
        self.mon.end_window("quiet")

    def test_optimizer_step_charges_its_reads_and_writes(self):
        # SGD with momentum on a 64 x 64 Linear with bias (4,160 elements,
        # one momentum buffer each): per element 2 + 4 FLOPs, the parameter
        # read and written, the gradient read, the buffer read and written
        # (5 x 4 B); FLOPs scaled by 1e9 to make it compute-bound.
        lin = torch.nn.Linear(64, 64)
        lin(torch.ones(8, 64)).sum().backward()
        opt = torch.optim.SGD(lin.parameters(), lr=0.1, momentum=0.9)
        n = 64 * 64 + 64
        scale = (1e9, 1.0)
        m = ert.optimizer_step(opt, name="opt", work_scale=scale,
                               monitor=self.mon)
        self.assertEqual(m.name, "opt")
        model = max(n * 6 * scale[0] / PEAK, n * 5 * 4 / BW) + LAUNCH
        self.assertAlmostEqual(m.time / model, 1, delta=0.05)
        self.assertEqual(len(opt.state), 2)  # the step ran
        # No gradients: nothing charged, the window still measured.
        lin.zero_grad(set_to_none=True)
        m = ert.optimizer_step(opt, name="opt", monitor=self.mon)
        self.assertEqual(m.time, 0)
        with self.assertRaises(ValueError):
            ert.optimizer_step(opt, work_scale=0, monitor=self.mon)

    def test_task_names_for_plans(self):
        stage = ert.Stage(torch.nn.ReLU(), 1, names="tasks", monitor=self.mon)
        x = torch.zeros(4, requires_grad=True)
        out = stage(x, microbatch=3)
        self.assertEqual(stage.last_forward.name, "F1_3")
        stage.backward(out.sum(), microbatch=3)
        self.assertEqual(stage.last_backward.name, "B1_3")
        with self.assertRaises(ValueError):
            stage(x)  # a task name needs the microbatch

    def test_no_grad_forward_leaves_nothing_to_match(self):
        stage = ert.Stage(torch.nn.ReLU(), 0, monitor=self.mon)
        with torch.no_grad():
            stage(torch.zeros(4))
        with self.assertRaises(energy_rt.EnergyRuntimeError):
            stage.backward(torch.zeros(4))

    def test_backward_matches_its_microbatch(self):
        # Two forwards of different sizes; the second's backward first: it
        # is charged its own forward's work (twice), not the oldest one's.
        lin = torch.nn.Linear(64, 64, bias=False)
        stage = ert.Stage(lin, 0, names="tasks", work_scale=(1e7, 1.0),
                          monitor=self.mon)
        small = torch.zeros(1, 64, requires_grad=True)
        big = torch.zeros(256, 64, requires_grad=True)
        y0 = stage(small, microbatch=0)
        y1 = stage(big, microbatch=1)
        # A backward whose name cannot be made loses no forward.
        with self.assertRaises(ValueError):
            stage.backward(y1.sum())
        stage.backward(y1.sum(), microbatch=1)
        flops = 2 * 256 * 64 * 64 * 1e7
        self.assertAlmostEqual(stage.last_backward.time /
                               (2 * flops / PEAK + LAUNCH), 1, delta=0.05)
        stage.backward(y0.sum(), microbatch=0)
        self.assertEqual(stage.last_backward.name, "B0_0")
        with self.assertRaisesRegex(energy_rt.EnergyRuntimeError,
                                    "microbatch 0"):
            stage.backward(y0.sum(), microbatch=0)

    def test_backward_matches_its_own_output_and_drops_dead_forwards(self):
        # A pipeline stage's backward is given its own forward's output:
        # matched by it, whatever the order, before any forward whose output
        # is gone; of those (an evaluation loop that forgot no_grad) only
        # the newest few are kept (they grew without bound and were matched
        # first in, first out).
        lin = torch.nn.Linear(64, 64, bias=False)
        stage = ert.Stage(lin, 0, work_scale=(1e7, 1.0), monitor=self.mon)
        for _ in range(100):
            stage(torch.zeros(1, 64, requires_grad=True))
        self.assertLessEqual(len(stage._pending), stage._DEAD_KEPT + 1)
        small = stage(torch.zeros(1, 64, requires_grad=True))
        big = stage(torch.zeros(256, 64, requires_grad=True))
        stage.backward(big, torch.ones_like(big))
        flops = 2 * 256 * 64 * 64 * 1e7
        self.assertAlmostEqual(stage.last_backward.time /
                               (2 * flops / PEAK + LAUNCH), 1, delta=0.05)
        # Without its tensor, the oldest forward still alive.
        stage.backward(small.sum())
        self.assertAlmostEqual(stage.last_backward.time /
                               (2 * flops / 256 / PEAK + LAUNCH), 1,
                               delta=0.05)

    def test_last_stage_backward_through_its_loss(self):
        # The last stage's output is freed once its loss is made (the loss
        # holds the graph, not the tensor): its forward is still the one
        # the backward charges (it was dropped, and the backward refused).
        lin = torch.nn.Linear(64, 64, bias=False)
        stage = ert.Stage(lin, 0, work_scale=(1e7, 1.0), monitor=self.mon)
        for mb, rows in ((0, 256), (None, 16)):
            x = torch.zeros(rows, 64, requires_grad=True)
            loss = torch.nn.functional.mse_loss(stage(x, microbatch=mb),
                                                torch.ones(rows, 64))
            stage.backward(loss, microbatch=mb)
            flops = 2 * rows * 64 * 64 * 1e7
            self.assertAlmostEqual(stage.last_backward.time /
                                   (2 * flops / PEAK + LAUNCH), 1,
                                   delta=0.05)

    def test_nested_stages_charge_once(self):
        lin = torch.nn.Linear(64, 64, bias=False)
        inner = ert.Stage(lin, 1, work_scale=(1e7, 1.0), monitor=self.mon)
        outer = ert.Stage(torch.nn.Sequential(inner), 2, work_scale=(1e7, 1.0),
                          monitor=self.mon)
        with torch.no_grad():
            outer(torch.zeros(64, 64))
        # The outer region holds the inner's: its dynamic energy is the
        # inner's, once.
        self.assertAlmostEqual(outer.last_forward.d / inner.last_forward.d, 1,
                               delta=0.05)

    def test_keyword_calls_and_own_weights_are_named(self):
        class Own(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.w = torch.nn.Parameter(torch.zeros(4, 4))
                self.act = torch.nn.ReLU()

            def forward(self, x):
                return self.act(x @ self.w)

        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            stage = ert.Stage(Own(), 0, monitor=self.mon)
        self.assertIn("Own", stage.uncounted)
        self.assertTrue(any("Own" in str(x.message) for x in w))
        class ByKeyword(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.mha = torch.nn.MultiheadAttention(8, 2, batch_first=True)

            def forward(self, x):
                return self.mha(query=x, key=x, value=x)[0]

        stage = ert.Stage(ByKeyword(), 0, monitor=self.mon)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            with torch.no_grad():
                stage(torch.zeros(1, 3, 8))
        self.assertTrue(any("positional" in str(x.message) for x in w))

    def test_bad_arguments(self):
        with self.assertRaises(ValueError):
            ert.Stage(torch.nn.ReLU(), 0, names="layers")
        for bad in (0, -1, float("inf"), (1, 2, 3), (1, -1), "2"):
            with self.assertRaises(ValueError):
                ert.Stage(torch.nn.ReLU(), 0, work_scale=bad)
        for bad in (-1, 1.5, True, "0"):
            with self.assertRaises(ValueError):
                ert.Stage(torch.nn.ReLU(), bad)
        stage = ert.Stage(torch.nn.ReLU(), 0, names="tasks", monitor=self.mon)
        for bad in (-1, 1.5, True):
            with self.assertRaises(ValueError):
                stage(torch.zeros(2), microbatch=bad)

    def test_uncounted_modules_with_weights_are_named(self):
        net = torch.nn.Sequential(torch.nn.Conv1d(2, 2, 3), torch.nn.Linear(2, 2))
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            stage = ert.Stage(net, 0, monitor=self.mon)
        self.assertEqual(stage.uncounted, ["Conv1d"])
        self.assertTrue(any("Conv1d" in str(x.message) for x in w))



def dataset_job(flops):
    """A job's first lines: torch and energy_rt, a Dataset of 8 samples each
    loaded in region 'load' (sim_run(flops, 1e8)), and the main guard; the
    caller's lines follow, indented under it."""
    return ("import torch, energy_rt\n"
            "from torch.utils.data import DataLoader, Dataset\n"
            "class D(Dataset):\n"
            "    def __len__(self):\n"
            "        return 8\n"
            "    def __getitem__(self, i):\n"
            "        with energy_rt.region('load'):\n"
            "            energy_rt.sim_run(%g, 1e8)\n"
            "        return torch.zeros(2)\n"
            "if __name__ == '__main__':\n" % flops)


def runs_by_key(docs):
    """Shards (name -> document) as key -> each shard's run count, in the
    shards' name order."""
    runs = {}
    for name in sorted(docs):
        for e in docs[name]["entries"]:
            runs.setdefault(e["key"], []).append(e["runs"])
    return runs


class DataLoaderTest(unittest.TestCase):
    def test_workers_write_their_windows(self):
        # A DataLoader's workers measure their loading: each writes
        # PATH.pid<N> as the loader shuts it down (by os._exit, after
        # multiprocessing's finalizers), 8 samples over 2 workers.
        job = dataset_job(0) + (
            "    energy_rt.Monitor(device='sim:a100')\n"
            "    with energy_rt.region('train'):\n"
            "        for _ in DataLoader(D(), batch_size=2, "
            "num_workers=2):\n"
            "            pass\n")
        r, docs = run_job(job, RANK="0",
                          ENERGY_RT_FLUSH_AT_EXIT="{out}/%r.json")
        self.assertEqual(r.returncode, 0, r.stderr)
        runs = runs_by_key(docs)
        self.assertEqual(runs.pop("train"), [1])
        self.assertEqual(runs, {"load": [4, 4]})

    def test_persistent_workers_write_at_exit(self):
        # Workers still alive when the program ends (persistent workers, an
        # iterator left open) are stopped by SIGTERM at exit: each writes
        # its shard first and ends with status 0 as PyTorch's handler would
        # (no crash report); all 8 loads are kept.
        job = dataset_job(0) + (
            "    energy_rt.Monitor(device='sim:a100')\n"
            "    loader = DataLoader(D(), batch_size=2, num_workers=2,\n"
            "                        persistent_workers=True)\n"
            "    with energy_rt.region('train'):\n"
            "        for _ in loader:\n"
            "            pass\n"
            "    it = iter(DataLoader(D(), batch_size=2, num_workers=1))\n"
            "    next(it)\n")
        r, docs = run_job(job, RANK="0",
                          ENERGY_RT_FLUSH_AT_EXIT="{out}/%r.json")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn("killed by signal", r.stderr)
        self.assertNotIn("exited unexpectedly", r.stderr)
        runs = runs_by_key(docs)
        self.assertEqual(runs.pop("train"), [1])
        # The persistent pair loaded 4 each; the open iterator's worker
        # loaded the batch taken and those it prefetched (2 samples each).
        loads = runs.pop("load")
        self.assertEqual(runs, {})
        self.assertEqual(len(loads), 3, loads)
        rest = list(loads)
        rest.remove(4)
        rest.remove(4)
        self.assertIn(rest[0], (2, 4, 6, 8), loads)

    def test_workers_started_before_the_first_measurement(self):
        # No Monitor: the device from ENERGY_RT_DEVICE, the loop's region
        # the rank's first measurement, so the loader's workers start
        # before the rank measures. They are its workers all the same:
        # beside its shard (they wrote over it, and it over them), with
        # their own noise; ENERGY_RT_SIM_SEED reproduces theirs too.
        job = dataset_job(1e12) + (
            "    for _ in DataLoader(D(), batch_size=2, num_workers=2):\n"
            "        with energy_rt.region('step'):\n"
            "            energy_rt.sim_run(1e12, 1e8)\n")
        loads = []
        for _ in range(2):
            r, docs = run_job(job, RANK="0", ENERGY_RT_DEVICE="sim:a100",
                              ENERGY_RT_SIM_SEED="5",
                              ENERGY_RT_FLUSH_AT_EXIT="{out}/%r.json")
            self.assertEqual(r.returncode, 0, r.stderr)
            (step,) = docs.pop("0.json")["entries"]
            self.assertEqual((step["key"], step["runs"]), ("step", 4))
            self.assertEqual(len(docs), 2, sorted(docs))
            self.assertTrue(all(n.startswith("0.json.pid") for n in docs))
            entries = [e for doc in docs.values() for e in doc["entries"]]
            self.assertEqual([(e["key"], e["runs"]) for e in entries],
                             [("load", 4), ("load", 4)])
            loads.append(sorted(e["d_J"] for e in entries))
        # Their own noise, reproduced by the seed (worker ids 0 and 1).
        self.assertNotEqual(loads[0][0], loads[0][1])
        self.assertEqual(loads[0], loads[1])


if __name__ == "__main__":
    unittest.main()
