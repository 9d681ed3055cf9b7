"""Writes the harness jobs of run_device.sh: saxpy (libkbtest_saxpy_ok.so) at n=16M, timed with
kernelbot's default [bench] settings; the same under ncu (few samples); metrics mode of the
coalesced saxpy against the strided one."""
import json
import sys

here, out = sys.argv[1], sys.argv[2]
n = 16 * 1024 * 1024
variants = f"{here}/variants"
try:
    device = json.load(open(f"{out}/device.json"))
except (OSError, ValueError):
    device = {}


def saxpy_job(mode, baseline, candidate=""):
    return {
        "mode": mode,
        "kernel": "saxpy",
        "baseline_library": f"{variants}/libkbtest_{baseline}.so",
        "candidate_library": f"{variants}/libkbtest_{candidate}.so" if candidate else "",
        "size_labels": [f"n={n}"],
        "args": [
            {"name": "x", "role": "input", "dtype": "float32", "counts": [n]},
            {"name": "y", "role": "inout", "dtype": "float32", "counts": [n], "rtol": 1e-4, "atol": 1e-5},
            {"name": "a", "role": "scalar", "dtype": "float32", "values": ["2.5"]},
            {"name": "n", "role": "size", "dtype": "int32", "values": [str(n)]},
        ],
        "flops": [2.0 * n],
        "bytes": [12.0 * n],  # x read, y read and written
        "seed": 20261122,
        "copy_bandwidth_gbps": device.get("copy_bandwidth_gbps", 0),
        "fp32_tflops": device.get("fp32_tflops", 0),
    }


json.dump(saxpy_job("time_baseline", "saxpy_ok"), open(f"{out}/job_time16m.json", "w"), indent=2)
ncu = saxpy_job("time_baseline", "saxpy_ok")
ncu["bench"] = {"warmup_runs": 3, "min_samples": 5, "max_samples": 20, "min_time_s": 0.0, "timeout_s": 5}
json.dump(ncu, open(f"{out}/job_ncu.json", "w"), indent=2)
json.dump(saxpy_job("metrics", "saxpy_ok", "saxpy_slow"), open(f"{out}/job_metrics.json", "w"), indent=2)
print(f"jobs written; calibrated copy {device.get('copy_bandwidth_gbps', 0):.0f} GB/s, "
      f"FP32 {device.get('fp32_tflops', 0):.1f} TFLOP/s")
