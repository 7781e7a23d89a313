"""A measured cap's interval from its own runs (energy-prof serve-plan):
an ML.ENERGY v3 task file made here, one model on one H100, caps 8 to 512,
cap 64 measured three times (0.10, 0.11, 0.12 J/token); an SLO that cap
64 meets and 128 does not makes 64 the answer, whose 95 % interval must be
the prediction interval of one more run from its three: mean +- t(0.975,
2) s sqrt(1 + 1/3) = 0.11 +- 4.3027 x 0.01 x 1.1547 (the runtime's t
quantiles are a table to 4 figures).

    serve_runs.py write FILE | check ANSWER.json"""
import json
import math
import sys

if sys.argv[1] == "write":
    rows = []
    for cap, e in [(8, 0.40), (16, 0.25), (32, 0.16), (64, 0.10), (64, 0.11),
                   (64, 0.12), (128, 0.08), (256, 0.07), (512, 0.065)]:
        rows.append({
            "model_id": "m", "architecture": "Dense Transformer",
            "gpu_model": "H100", "weight_precision": "bfloat16",
            "total_params_billions": 8, "activated_params_billions": 8,
            "num_gpus": 1, "tensor_parallel": 1, "data_parallel": 1,
            "expert_parallel": 1, "max_num_seqs": cap,
            "avg_batch_size": 0.9 * cap, "avg_output_len": 500,
            "avg_power_watts": 300.0, "energy_per_token_joules": e,
            "output_throughput_tokens_per_sec": 300.0 / e,
            "median_itl_ms": 10 + 0.1 * cap, "p90_itl_ms": 12 + 0.12 * cap})
    json.dump({"task": "t", "configurations": rows}, open(sys.argv[2], "w"))
else:
    d = json.load(open(sys.argv[2]))
    assert d["batch_cap"] == 64 and d["cap_measured"], d
    mean, s, n = 0.11, 0.01, 3
    hw = 4.302652729911275 * s * math.sqrt(1 + 1 / n)
    lo, hi = d["ci95_J_per_token"]
    assert abs(d["predicted_J_per_token"] - mean) < 1e-12, d
    # (The runtime's t quantiles are a table to 4 figures: 3e-4 relative.)
    got = (hi - lo) / 2
    assert abs((hi + lo) / 2 - mean) < 1e-12, (lo, hi)
    assert abs(got / hw - 1) < 3e-4, (got, hw)
    print("cap 64: %.4f +- %.4f J/token from its 3 runs" % (mean, hw))
