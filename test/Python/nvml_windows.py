"""Windows on a GPU path (the runtime's NVML code on the FakeNvml driver
double, test/Runtime/FakeNvml): end_window does not wait for the energy
counter, and a Measurement's energy, read later, is the double's constant
power x the window's time. Run by energy-rt-nvml.test."""

import dataclasses
import os
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
            # Half a 10 ms poll at each end, and a loaded machine.
            self.assertAlmostEqual(m.total_energy, POWER * m.time,
                                   delta=POWER * 0.01)
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
        for _ in range(50):
            self.mon.begin_window("unread")
            self.mon.end_window("unread")
        path = os.path.join(os.environ["TEST_TMP"], "nvml-db-%r.json")
        energy_rt.flush(path)
        with open(path.replace("%r", "0")) as f:
            text = f.read()
        self.assertIn('"key": "unread"', text)
        self.assertIn('"runs": 50', text)


if __name__ == "__main__":
    unittest.main()
