#!/usr/bin/env bash
# rigsim-probe with no visible GPU (CUDA_VISIBLE_DEVICES emptied, so this holds on a GPU machine too):
# it must say so, exit with status 2, and write nothing.
# Usage: probe_no_device.sh RIGSIM_PROBE_BINARY
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=$(CUDA_VISIBLE_DEVICES= timeout 60 "$1" -o "$tmp/m.json" 2>&1)
rc=$?
echo "$out"
[ $rc -eq 2 ] || { echo "FAIL: exit status $rc, want 2"; exit 1; }
grep -q "no usable NVIDIA GPU" <<<"$out" || { echo "FAIL: no 'no usable NVIDIA GPU' message"; exit 1; }
[ ! -e "$tmp/m.json" ] || { echo "FAIL: wrote $tmp/m.json"; exit 1; }
echo "probe_no_device: OK"
