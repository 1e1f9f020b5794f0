#!/usr/bin/env bash
# The main job: the embedded default scenario — full fine-tuning of Llama-2-7B with PyTorch FSDP
# (full_shard) and the optimizer offloaded to the CPU, 64 sequences of 2048 tokens per step — on every
# catalog layout, ranked by tokens/s with memory fit, MFU and the busiest link (`rigsim compare`); then
# the winner's and the last fitting layout's steps in full (`rigsim run`), with the reasons.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
rigsim="${RIGSIM:-$here/build/app/rigsim}"
"$rigsim" compare
# The first and the last layout that ran, read from compare's JSON with a JSON parser.
read -r best worst < <("$rigsim" compare --json | python3 -c '
import json, sys
rows = [r for r in json.load(sys.stdin)["rows"] if "error" not in r and r["fits"]]
print(rows[0]["file"], rows[-1]["file"])')
for layout in "$best" "$worst"; do
  echo
  echo "=== $(basename "$layout" .json) ==="
  "$rigsim" run --layout "$layout"
done
