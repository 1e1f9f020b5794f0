#!/usr/bin/env bash
# Builds rigsim-bench (Google Benchmark) and prints two tables: simulation wall time and simulated
# flows per second of collectives against the targets of issue 3, and the wall time of one simulated
# training step (median of its repetitions) against the targets of issue 7.
# Usage: tools/bench.sh [build dir] [extra benchmark args, e.g. --benchmark_filter=TrainingStep]
# Environment: RIGSIM_JOBS (make jobs, default 1).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-"$here/build"}
shift || true
jobs=${RIGSIM_JOBS:-1}

mkdir -p "$build"
cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$build/bench-configure.log" 2>&1 ||
  { cat "$build/bench-configure.log"; exit 1; }
targets=$(make -C "$build" help)
if [[ "$targets" != *rigsim-bench* ]]; then
  echo "bench: Google Benchmark not found (apt-get install libbenchmark-dev), rigsim-bench not configured" >&2
  exit 1
fi
make -C "$build" -j "$jobs" rigsim-bench >/dev/null

out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$build/bench/rigsim-bench" --benchmark_format=json --benchmark_out="$out" --benchmark_out_format=json "$@" >/dev/null

python3 - "$out" <<'EOF'
import json, sys
# Targets (issue 3, 2-core machine): wall-clock seconds per case.
targets = {"nodes:1/tree:0": ("1 GiB all_reduce, 8 GPUs", 0.020),
           "nodes:8/tree:0": ("1 GiB all_reduce, 64 GPUs", None),
           "nodes:64/tree:0": ("1 GiB all_reduce, 512 GPUs", 1.0),
           "nodes:512/tree:0": ("1 GiB all_reduce, 4096 GPUs (ring)", 10.0),
           "nodes:512/tree:1": ("1 GiB all_reduce, 4096 GPUs (tree)", None),
           "BM_Sweep8Gpus": ("sweep 8 B..128 MiB, 8 GPUs", 1.0),
           "BM_Plan4096": ("plan only, 4096 GPUs", None)}
rows = json.load(open(sys.argv[1]))["benchmarks"]
training = [b for b in rows if b["name"].startswith("BM_TrainingStep")]
rows = [b for b in rows if not b["name"].startswith("BM_TrainingStep")]
def ms_of(b):
    scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}[b["time_unit"]]
    return b["real_time"] * scale

if rows:
    print(f"{'case':38} {'GPUs':>6} {'flows':>7} {'wall ms':>9} {'flows/s':>10} {'busbw GB/s':>10} {'target':>8}  ok")
for b in rows:
    key = next((k for k in targets if k in b["name"]), None)
    label, target = targets.get(key, (b["name"], None))
    ms = ms_of(b)
    ok = "-" if target is None else ("yes" if ms / 1e3 < target else "NO")
    tgt = "-" if target is None else f"{target * 1e3:.0f} ms"
    print(f"{label:38} {b.get('gpus', 0):6.0f} {b.get('flows', 0):7.0f} {ms:9.1f} {b.get('flows/s', 0):10.0f} "
          f"{b.get('busbw_GBps', 0):10.2f} {tgt:>8}  {ok}")

# Training steps (issue 7 "Speed", 2-core machine): wall-clock seconds of one simulated step, program
# build included; the median of the case's repetitions (bench/bench_training.cpp).
step_targets = {"Llama2_7b_Fsdp_8gpu": ("Llama-2-7B FSDP, 8 GPUs", 0.25),
                "Llama2_70b_3d_64gpu": ("Llama-2-70B tp8xpp4xdp2, 64 GPUs", 5.0),
                "Mixtral_Ep_8gpu": ("Mixtral 8x7B EP, 8 GPUs", 0.5)}
medians = [b for b in training if b.get("aggregate_name") == "median"]
if medians:
    if rows:
        print()
    print(f"{'training step':38} {'GPUs':>6} {'tasks':>7} {'median ms':>10} {'min ms':>8} {'max ms':>8} "
          f"{'target':>8}  ok")
for b in medians:
    key = next((k for k in step_targets if k in b["name"]), None)
    label, target = step_targets.get(key, (b["name"], None))
    runs = [ms_of(r) for r in training
            if r["run_name"] == b["run_name"] and r.get("run_type") == "iteration"]
    ms = ms_of(b)
    lo = min(runs) if runs else ms
    hi = max(runs) if runs else ms
    ok = "-" if target is None else ("yes" if ms / 1e3 <= target else "NO")
    tgt = "-" if target is None else f"{target * 1e3:.0f} ms"
    print(f"{label:38} {b.get('gpus', 0):6.0f} {b.get('tasks', 0):7.0f} {ms:10.1f} {lo:8.1f} {hi:8.1f} "
          f"{tgt:>8}  {ok}")
EOF
