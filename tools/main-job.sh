#!/usr/bin/env bash
# The main job: every catalog layout runs the same default scenario — a 1 GiB all_reduce across all
# its GPUs, as nccl-tests' all_reduce_perf would — and the layouts are ranked by bus bandwidth, each
# with the link that limits it. Then the best and the worst are shown in full, with the reasons.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
rigsim="$here/build/app/rigsim"
size=${RIGSIM_MAIN_SIZE:-1G}
rows=$(mktemp)
trap 'rm -f "$rows"' EXIT
for layout in "$here"/scenarios/layouts/*.json; do
  name=$(basename "$layout" .json)
  json=$("$rigsim" bench "$layout" --op all_reduce -b "$size" -e "$size" --json)
  gpus=$(printf '%s\n' "$json" | awk '/"gpus": \[/{on=1; next} on && /\]/{on=0} on{n++} END{print n+0}')
  busbw=$(printf '%s\n' "$json" | sed -n 's/.*"avg_busbw": *\([0-9.eE+-]*\).*/\1/p' | head -1)
  link=$(printf '%s\n' "$json" | sed -n 's/.*"link": *"\([^"]*\)".*/\1/p' | head -1)
  printf '%s\t%s\t%s\t%s\n' "$busbw" "$name" "$gpus" "$link" >>"$rows"
done
echo "Default scenario: all_reduce of $size over every GPU of each layout (nccl-tests semantics, simulated)"
echo
printf '%-30s %5s %12s   %s\n' "layout" "GPUs" "busbw GB/s" "busiest link"
sort -t$'\t' -k1,1gr "$rows" | while IFS=$'\t' read -r busbw name gpus link; do
  printf '%-30s %5s %12.2f   %s\n' "$name" "$gpus" "$busbw" "$link"
done
best=$(sort -t$'\t' -k1,1gr "$rows" | head -1 | cut -f2)
worst=$(sort -t$'\t' -k1,1gr "$rows" | tail -1 | cut -f2)
for name in "$best" "$worst"; do
  echo
  echo "=== $name ==="
  "$rigsim" bench "$here/scenarios/layouts/$name.json" --op all_reduce -b 8M -e "$size" -f 8
done
