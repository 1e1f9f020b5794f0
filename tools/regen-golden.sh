#!/usr/bin/env bash
# Regenerates the reviewed expectations of the golden tests from the current build. Review the
# diff (git diff scenarios/expected) before committing: every change of a prediction shows there.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
rigsim=${RIGSIM:-$here/build/app/rigsim}
[ -x "$rigsim" ] || { echo "build first: $rigsim not found" >&2; exit 1; }
mkdir -p "$here/scenarios/expected/topo" "$here/scenarios/expected/bench" "$here/scenarios/expected/platform"
for layout in "$here"/scenarios/layouts/*.json; do
  name=$(basename "$layout" .json)
  "$rigsim" topo "$layout" --format json -o "$here/scenarios/expected/topo/$name.json"
  echo "wrote scenarios/expected/topo/$name.json"
  "$rigsim" bench "$layout" --op all_reduce -b 1M -e 1G -f 32 --json -o "$here/scenarios/expected/bench/$name.json"
  echo "wrote scenarios/expected/bench/$name.json"
  "$rigsim" bench "$layout" --op all_reduce --dump-platform -o "$here/scenarios/expected/platform/$name.txt"
  echo "wrote scenarios/expected/platform/$name.txt"
done
