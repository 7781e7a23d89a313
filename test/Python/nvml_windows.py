"""Windows on a GPU path (the runtime's NVML code on the FakeNvml driver
double, test/Runtime/FakeNvml): end_window does not wait for the energy
counter, and a Measurement's energy, read later, is the double's constant
power x the window's time. Run by energy-rt-nvml.test."""

import copy
import ctypes
import dataclasses
import os
import pickle
import threading
import time
import unittest

import energy_rt

POWER = float(os.environ.get("FAKE_NVML_POWER_W", "250"))


class NvmlWindows(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.mon = energy_rt.Monitor(gpu_indices=[0])

    def test_windows_in_a_loop_do_not_wait(self):
        ms = []
        t0 = time.monotonic()
        for _ in range(10):
            with energy_rt.region("stage0.forward", self.mon) as r:
                time.sleep(0.01)
            ms.append(r.measurement)
        loop = time.monotonic() - t0
        # ~0.1 s; waiting for the counter's 100 ms update at each end
        # would take ~1 s (half of that allowed for a loaded machine).
        self.assertLess(loop, 0.5)
        for m in ms:
            self.assertGreaterEqual(m.time, 0.01)
            self.assertEqual(m.clock_mhz, 1980)
            # A constant draw: P x T, within the placement of the
            # counter's changes (half a 10 ms poll each, in 100 ms updates)
            # on a loaded machine.
            self.assertAlmostEqual(m.total_energy, POWER * m.time,
                                   delta=0.5 * POWER * m.time)
            self.assertTrue(m.ready)
            self.assertEqual(m.gpu_energy, {0: m.total_energy})
            self.assertAlmostEqual(m.d, m.total_energy - m.s * m.time)

    def test_a_measurement_reads_like_a_dataclass(self):
        self.mon.begin_window("w")
        time.sleep(0.005)
        m = self.mon.end_window("w")
        fields = dataclasses.asdict(m)  # waits for the energy
        self.assertEqual(fields["total_energy"], m.total_energy)
        self.assertEqual(fields["energy"], {0: m.total_energy})
        self.assertIn("total_energy=", repr(m))
        self.assertEqual(m, dataclasses.replace(m))

    def test_unread_measurements_are_released(self):
        # Dropped unread, each Measurement lets the runtime forget its
        # energy; the windows still count in the region's signature.
        tickets = []
        for _ in range(50):
            self.mon.begin_window("unread")
            tickets.append(self.mon.end_window("unread")._ticket[0])
        e = ctypes.c_double()
        for t in tickets:
            self.assertEqual(
                energy_rt._lib.er_ticket_energy(t, 1, ctypes.byref(e)), -1)
        self.assertIn(b"read or released already",
                      energy_rt._lib.er_last_error())
        path = os.path.join(os.environ["TEST_TMP"], "nvml-db-%r.json")
        energy_rt.flush(path)
        with open(path.replace("%r", "0")) as f:
            text = f.read()
        self.assertIn('"key": "unread"', text)
        self.assertIn('"runs": 50', text)


    def test_copies_and_threads_read_the_energy_once(self):
        # A copy or a pickle carries the energy, not the ticket (reading
        # through a copy left the original none; another process's runtime
        # answered for its own window of that number), and threads reading
        # one Measurement at once all get it.
        self.mon.begin_window("c")
        time.sleep(0.02)
        m = self.mon.end_window("c")
        c = copy.copy(m)
        self.assertNotIn("_ticket", vars(c))
        self.assertEqual(c.total_energy, m.total_energy)
        self.mon.begin_window("p")
        time.sleep(0.02)
        p = self.mon.end_window("p")
        q = pickle.loads(pickle.dumps(p))
        self.assertEqual(q.total_energy, p.total_energy)
        self.mon.begin_window("t")
        time.sleep(0.02)
        t = self.mon.end_window("t")
        got, errors = [], []

        def read():
            try:
                got.append(t.total_energy)
            except Exception as e:  # what the test looks for
                errors.append(e)
        threads = [threading.Thread(target=read) for _ in range(4)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        self.assertEqual(errors, [])
        self.assertEqual(len(set(got)), 1)


if __name__ == "__main__":
    unittest.main()
