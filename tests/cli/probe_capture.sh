#!/usr/bin/env bash
# The probe's real output on an H200 (tests/probe/h200-vm): `rigsim validate` re-simulates every
# measured point on the layout sketch the probe wrote, and again on one `rigsim import nvidia-smi-topo`
# makes from the captured matrix; none skipped, every prediction within a factor of 2.
# Usage: probe_capture.sh RIGSIM_BINARY SOURCE_DIR
set -u
rigsim=$1
dir=$2/tests/probe/h200-vm
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=$("$rigsim" validate "$dir/h200.json" --max-factor 2 2>&1)
rc=$?
echo "$out"
[ $rc -eq 0 ] || { echo "FAIL: validate (the probe's own sketch) exit status $rc"; exit 1; }
grep -Eq "^all +23 " <<<"$out" || { echo "FAIL: want all 23 points compared"; exit 1; }
"$rigsim" import nvidia-smi-topo "$dir/nvidia-smi-topo-m.txt" --cpu xeon-scalable-5 --gpu h200-sxm \
  -o "$tmp/layout.json" 2>/dev/null || { echo "FAIL: import"; exit 1; }
out=$("$rigsim" validate "$dir/h200.json" --layout "$tmp/layout.json" --max-factor 2 2>&1)
rc=$?
[ $rc -eq 0 ] || { echo "$out"; echo "FAIL: validate (imported layout) exit status $rc"; exit 1; }
grep -Eq "^all +23 " <<<"$out" || { echo "$out"; echo "FAIL: want all 23 points compared"; exit 1; }
echo "probe_capture: OK"
