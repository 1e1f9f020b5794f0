#!/usr/bin/env bash
# Builds rigsim-bench (Google Benchmark) and prints simulation wall time and simulated flows per
# second against the targets of issue 3. Usage: tools/bench.sh [build dir] [extra benchmark args]
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
print(f"{'case':38} {'GPUs':>6} {'flows':>7} {'wall ms':>9} {'flows/s':>10} {'busbw GB/s':>10} {'target':>8}  ok")
for b in rows:
    key = next((k for k in targets if k in b["name"]), None)
    label, target = targets.get(key, (b["name"], None))
    ms = b["real_time"] if b["time_unit"] == "ms" else b["real_time"] / 1e6
    ok = "-" if target is None else ("yes" if ms / 1e3 < target else "NO")
    tgt = "-" if target is None else f"{target * 1e3:.0f} ms"
    print(f"{label:38} {b.get('gpus', 0):6.0f} {b.get('flows', 0):7.0f} {ms:9.1f} {b.get('flows/s', 0):10.0f} "
          f"{b.get('busbw_GBps', 0):10.2f} {tgt:>8}  {ok}")
EOF
