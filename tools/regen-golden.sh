#!/usr/bin/env bash
# Regenerates the reviewed expectations of the golden tests from the current build. Review the
# diff (git diff scenarios/expected) before committing: every change of a prediction shows there.
# Usage: tools/regen-golden.sh [all|layouts|training]   (default all; RIGSIM=path of the rigsim binary)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
rigsim=${RIGSIM:-$here/build/app/rigsim}
which=${1:-all}
case "$which" in all | layouts | training) ;; *) echo "usage: $0 [all|layouts|training]" >&2; exit 2 ;; esac
[ -x "$rigsim" ] || { echo "build first: $rigsim not found" >&2; exit 1; }

# Every catalog layout: its topology, its all_reduce sweep and its flattened platform.
if [ "$which" != training ]; then
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
fi

# Training scenarios (one per strategy): the report of `rigsim run SCENARIO --json`, checked by
# tests/golden/training_golden_test.cpp. The expectation of a removed scenario is deleted.
if [ "$which" != layouts ]; then
  mkdir -p "$here/scenarios/expected/training"
  for expected in "$here"/scenarios/expected/training/*.json; do
    [ -e "$expected" ] || continue
    [ -e "$here/scenarios/training/$(basename "$expected")" ] || { rm "$expected"; echo "removed $expected"; }
  done
  for scenario in "$here"/scenarios/training/*.json; do
    name=$(basename "$scenario" .json)
    "$rigsim" run "$scenario" --json -o "$here/scenarios/expected/training/$name.json"
    echo "wrote scenarios/expected/training/$name.json"
  done
fi
