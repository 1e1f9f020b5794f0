#!/usr/bin/env bash
# The main job: how the catalog's servers connect their GPUs, side by side.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
rigsim="$here/build/app/rigsim"
for layout in consumer-2x3090-nvlink mining-3x3090-x1 supermicro-4028gr-tr2-x10drg; do
  "$rigsim" topo "$here/scenarios/layouts/$layout.json"
  echo
done
