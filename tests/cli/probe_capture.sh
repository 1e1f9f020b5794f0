#!/usr/bin/env bash
# The probe's real output on an H200 and an H100 (tests/probe/*-vm): `rigsim validate` re-simulates
# every measured point on the rig's layout sketch, and again on one `rigsim import nvidia-smi-topo`
# makes from the captured matrix; none skipped, every prediction within a factor of 2.
# Usage: probe_capture.sh RIGSIM_BINARY SOURCE_DIR
set -u
rigsim=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
check() {  # CAPTURE_DIR MEASUREMENTS_FILE GPU_KEY
  local dir=$src/tests/probe/$1 out rc
  out=$("$rigsim" validate "$dir/$2" --max-factor 2 2>&1)
  rc=$?
  echo "$out"
  [ $rc -eq 0 ] || { echo "FAIL: $1: validate (the rig's sketch) exit status $rc"; exit 1; }
  grep -Eq "^all +23 " <<<"$out" || { echo "FAIL: $1: want all 23 points compared"; exit 1; }
  "$rigsim" import nvidia-smi-topo "$dir/nvidia-smi-topo-m.txt" --cpu xeon-scalable-5 --gpu "$3" \
    -o "$tmp/$1.json" 2>/dev/null || { echo "FAIL: $1: import"; exit 1; }
  out=$("$rigsim" validate "$dir/$2" --layout "$tmp/$1.json" --max-factor 2 2>&1)
  rc=$?
  [ $rc -eq 0 ] || { echo "$out"; echo "FAIL: $1: validate (imported layout) exit status $rc"; exit 1; }
  grep -Eq "^all +23 " <<<"$out" || { echo "$out"; echo "FAIL: $1: want all 23 points compared"; exit 1; }
}
check h200-vm h200.json h200-sxm
check h100-vm h100.json h100-sxm5
echo "probe_capture: OK"
