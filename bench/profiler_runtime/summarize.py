"""Prints the table of run_device.sh: the five timings, their spread, ncu's duration of the same
kernel, the device's calibrated ceilings and the metrics-mode values."""
import csv
import json
import statistics
import sys

out = sys.argv[1]


def load(name):
    try:
        return json.load(open(f"{out}/{name}"))
    except (OSError, ValueError):
        return None


device = load("device.json") or {}
print(f"device: {device.get('name')} cc {device.get('cc_major')}.{device.get('cc_minor')}, "
      f"{device.get('sm_count')} SMs, L2 {device.get('l2_bytes', 0) / 2**20:.0f} MiB, driver "
      f"{device.get('driver_version')}, runtime {device.get('runtime_version')}")
print(f"calibrated: copy {device.get('copy_bandwidth_gbps', 0):.0f} GB/s (read+written), "
      f"FP32 FFMA {device.get('fp32_tflops', 0):.2f} TFLOP/s")

medians = []
print("\nsaxpy n=16M, time_baseline, default bench, five separate processes:")
print("run  median_us  q1_us    q3_us    noise%  samples dropped stop_reason    clock_MHz cupti_span_us %floor notes")
for i in range(1, 6):
    r = load(f"time16m_{i}.json")
    if not r or not r.get("timings"):
        print(f"{i}    (no result)")
        continue
    t = r["timings"][0]
    b = t["baseline"]
    medians.append(b["median_us"])
    print(f"{i}    {b['median_us']:8.3f}  {b['q1_us']:7.3f}  {b['q3_us']:7.3f}  {b['noise'] * 100:5.2f}  "
          f"{b['samples']:7d} {b['dropped_samples']:7d} {b['stop_reason']:<14} {b['sm_clock_mhz']:8.0f} "
          f"{b['cupti_span_us']:12.3f} {t['baseline_pct_of_floor']:6.1f} {b['notes']}")
if medians:
    mean = statistics.mean(medians)
    print(f"spread of medians: (max-min)/mean = {(max(medians) - min(medians)) / mean * 100:.3f}%  "
          f"(mean {mean:.3f} us)")

durations = []
time_unit = "?"
try:
    rows = list(csv.DictReader(line for line in open(f"{out}/ncu.csv") if line.startswith('"')))
    for row in rows:
        if row.get("Metric Name") == "gpu__time_duration.sum":
            value = float(row["Metric Value"].replace(",", ""))
            unit = row.get("Metric Unit", "")
            time_unit = unit
            scale = {"nsecond": 1e-3, "ns": 1e-3, "usecond": 1.0, "us": 1.0, "msecond": 1e3, "ms": 1e3,
                     "second": 1e6, "s": 1e6}.get(unit)
            if scale is None:
                raise ValueError(f"unknown ncu time unit {unit!r}")
            durations.append(value * scale)
    other = {}
    for row in rows:
        if row.get("Metric Name") != "gpu__time_duration.sum":
            other.setdefault(row["Metric Name"], []).append(f"{row['Metric Value']} {row.get('Metric Unit', '')}")
    if durations:
        nm = statistics.median(durations)
        print(f"\nncu time unit: {time_unit}")
        print(f"ncu gpu__time_duration.sum of the same kernel (--clock-control none --cache-control all), "
              f"{len(durations)} launches: median {nm:.3f} us, min {min(durations):.3f}, max {max(durations):.3f}")
        if medians:
            print(f"harness mean median / ncu median = {statistics.mean(medians) / nm:.4f}")
        for name, values in other.items():
            print(f"  ncu {name}: {values[0]} (first launch)")
except OSError:
    print("no ncu output")

m = load("metrics.json")
if m:
    for who in ("baseline_metrics", "candidate_metrics"):
        km = m.get(who, {})
        print(f"\nmetrics mode, {who}: status {km.get('status')}; kernel {km.get('kernel_name')}; "
              f"{km.get('registers_per_thread')} registers/thread; size {km.get('size_label')}")
        for key, value in sorted(km.get("values", {}).items()):
            print(f"  {key:36s} {value:16.4f}")
