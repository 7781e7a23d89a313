"""A version-1 signature DB of 400 keys at 20 clocks (about 1 MB), for the
file-size-limit tests."""
import json

entries = [{"key": "k%d" % k, "sm_mhz": 1410 - 15 * c, "s_W": 60.0,
            "T_s": 0.001 * (1 + c), "d_J": 0.1, "sigma_T_s": 1e-6,
            "sigma_d_J": 1e-4, "runs": 5, "method": "simulated"}
           for k in range(400) for c in range(20)]
print(json.dumps({"version": 1, "device": "sim:A100-SXM4 (simulated)",
                  "entries": entries}, indent=1))
