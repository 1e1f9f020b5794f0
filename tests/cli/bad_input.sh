#!/usr/bin/env bash
# End-to-end bad input: every case must fail with a clear message and a non-zero exit, never crash
# (exit codes >= 128 are signals), hang (each run is bounded by timeout) or leave an output file.
# Usage: bad_input.sh RIGSIM_BINARY SOURCE_DIR
set -u
rigsim=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
layout="$src/scenarios/layouts/consumer-2x4090.json"

expect_error() {  # expect_error "phrase" args...
  local phrase=$1
  shift
  local out rc
  out=$(timeout 60 "$rigsim" "$@" 2>&1)
  rc=$?
  if [ $rc -eq 0 ] || [ $rc -ge 124 ]; then
    echo "FAIL: rigsim $* exited $rc (want a clean non-zero exit)"; echo "$out" | head -5; failed=$((failed + 1)); return
  fi
  if ! grep -qF -- "$phrase" <<<"$out"; then
    echo "FAIL: rigsim $* did not say \"$phrase\":"; echo "$out" | head -5; failed=$((failed + 1)); return
  fi
  passed=$((passed + 1))
}

printf '{"name": "x",\n  "cpus": [}\n' >"$tmp/syntax.json"
printf '{"name": "x", "cpus": [{"id": "c", "model": "ryzen-5000"}], "host_bridges": [{"id": "r", "cpu": "c", "lanes": 16}], "gpus": [{"id": "g", "model": "rtx-3090", "parent": "r", "lnk": {}}]}' >"$tmp/unknown_key.json"
printf '{"name": "x", "cpus": [{"id": "c", "model": "ryzen-5000"}], "host_bridges": [{"id": "r", "cpu": "c", "lanes": 16}], "gpus": [{"id": "g", "model": "rtx-3090"}]}' >"$tmp/nothing.json"
printf '<system version="1"><cpu numaid="0"><pci busid="0000:01:00.0" class="0x030000"' >"$tmp/broken.xml"

printf '{"name": "x", "psu": {"kind": "atx4", "unit_w": 1000}, "cpus": [{"id": "c", "model": "ryzen-5000"}], "host_bridges": [{"id": "r", "cpu": "c", "lanes": 16}], "gpus": [{"id": "g", "model": "rtx-3090", "parent": "r"}]}' >"$tmp/psu_kind.json"
printf '{"name": "x", "cpus": [{"id": "c", "model": "xeon-scalable-3", "nps": 4}], "host_bridges": [{"id": "r", "cpu": "c", "lanes": 16}], "gpus": [{"id": "g", "model": "rtx-3090", "parent": "r"}]}' >"$tmp/nps.json"
printf '{"name": "x", "cpus": [{"id": "c", "model": "ryzen-5000"}], "host_bridges": [{"id": "r", "cpu": "c", "lanes": 16}], "gpus": [{"id": "g", "model": "rtx-3090", "parent": "r"}, {"id": "h", "model": "rtx-3090", "parent": "r"}], "xgmi": [{"gpus": ["g", "h"]}]}' >"$tmp/xgmi.json"
expect_error "expected an NCCL release like 2.21" bench "$layout" --nccl-version 2.x
expect_error "/psu/kind" topo "$tmp/psu_kind.json"
expect_error "/cpus/0/nps" topo "$tmp/nps.json"
expect_error "has no Infinity Fabric GPU links" topo "$tmp/xgmi.json"
expect_error "line 2, column 12" topo "$tmp/syntax.json"
expect_error "/gpus/0/lnk" topo "$tmp/unknown_key.json"
expect_error "attached to nothing" topo "$tmp/nothing.json"
expect_error "line" topo "$tmp/broken.xml"
expect_error "unknown collective" bench "$layout" --op allreduce
expect_error "out of range" bench "$layout" --op all_reduce --gpus 0,7
expect_error "2^40" bench "$layout" --op all_reduce -e 4096G
expect_error "size" bench "$layout" --op all_reduce -b lots
expect_error "-g: expected at least 1 GPU" bench "$layout" --op all_reduce -g 0
expect_error "nothing.json" bench "$tmp/nothing.json" --op all_reduce
expect_error "attached to nothing" p2p "$tmp/nothing.json"
expect_error "unknown key" p2p "$layout" --cost-model "$tmp/unknown_key.json"

# Training scenarios: strict reading, plans that cannot run, dtypes a GPU lacks.
printf '{"model": "llama-2-7b", "global_batch": 8, "micro_batch": 1, "seq_len": 1024, "dtype": "bf16", "optimizer": "adamw", "parallel": {"dp": 2, "tpp": 2}}' >"$tmp/typo.json"
printf '{"model": "llama-2-7b", "global_batch": 8, "micro_batch": 1, "seq_len": 1024, "dtype": "bf16", "optimizer": "adamw", "parallel": {"dp": 1, "tp": 3}}' >"$tmp/tp3.json"
printf '{"model": "llama-2-9b", "global_batch": 8, "micro_batch": 1, "seq_len": 1024, "dtype": "bf16", "optimizer": "adamw", "parallel": {"dp": 2}}' >"$tmp/nomodel.json"
printf '{"model": "gpt2-124m", "global_batch": 8, "micro_batch": 1, "seq_len": 1024, "dtype": "fp8", "optimizer": "adamw", "parallel": {"dp": 2}}' >"$tmp/fp8.json"
printf '{"model": "gpt2-124m", "global_batch": 8, "micro_batch": 1, "seq_len": 1024, "dtype": "bf16", "optimizer": "adamw", "parallel": {"dp": 4}}' >"$tmp/world.json"
expect_error "/parallel/tpp" run "$tmp/typo.json" --layout "$layout"
expect_error "tp" run "$tmp/tp3.json" --layout "$layout"
expect_error "llama-2-7b" run "$tmp/nomodel.json" --layout "$layout"
expect_error "no layout" run "$tmp/world.json"
expect_error "/parallel" run "$tmp/world.json" --layout "$layout"
expect_error "FP8" run "$tmp/fp8.json" --layout "$src/scenarios/layouts/consumer-2x3090-nvlink.json"
expect_error "expected at least 1 GPU per server, got 0" bench "$layout" -g 0
expect_error "expected a root rank of 0 or more, got -1" bench "$layout" --op broadcast -r -1
expect_error "is not a whole number of bytes" bench "$layout" -b 1.5
expect_error "expected GPU ids like 0,1,2,3" bench "$layout" --gpus ""
expect_error "NCCL reads it but rigsim does not model it" bench "$layout" --nccl-env NCCL_CROSS_NIC=1
expect_error "but the server has no NIC" bench "$layout" --nccl-env NCCL_SHM_DISABLE=1
expect_error "expected LOC, PIX, PXB, PHB (NODE), SYS or" bench "$layout" --nccl-env NCCL_NET_GDR_LEVEL=NVL
expect_error "unknown NCCL variable" bench "$layout" --nccl-env NCCL_FOO=1
# A variable NCCL reads is told apart from a typo, and --nccl-env takes one KEY=VALUE: the layout may follow.
expect_error "NCCL reads it (releases 2.14.3 and later)" bench --nccl-env NCCL_IB_QPS_PER_CONNECTION=4 "$layout"
expect_error "NCCL would read the topology file; give one of them" bench "$layout" --nccl-env NCCL_TOPO_FILE="$tmp/broken.xml"
expect_error "expected a layout JSON or NCCL topology XML file (or NCCL_TOPO_FILE)" bench -b 1M
expect_error "malformed XML" bench --nccl-env NCCL_TOPO_FILE="$tmp/broken.xml"
expect_error "broken.xml: line 1: malformed XML" bench "$layout" --nccl-env NCCL_GRAPH_FILE="$tmp/broken.xml"
expect_error "expected KEY=VALUE" bench "$layout" --nccl-env NCCL_ALGO
expect_error "is not a regular file" topo /dev/zero
expect_error "is a directory" topo "$layout" -o "$tmp"
printf '{"name": "x", "name": "y"}' >"$tmp/dup.json"
expect_error "/name: duplicate key" topo "$tmp/dup.json"
expect_error "attached to nothing" compare "$tmp/world.json" --layouts "$tmp/nothing.json" --json -o "$tmp/cmp.json"

# A failing command leaves no output file behind.
timeout 60 "$rigsim" topo "$tmp/nothing.json" -o "$tmp/out.json" >/dev/null 2>&1
timeout 60 "$rigsim" run "$tmp/tp3.json" --layout "$layout" -o "$tmp/run.json" --trace "$tmp/trace.json" >/dev/null 2>&1
if [ -e "$tmp/out.json" ] || [ -e "$tmp/out.json.tmp" ] || [ -e "$tmp/run.json" ] || [ -e "$tmp/trace.json" ]; then
  echo "FAIL: a failed run left an output file"; failed=$((failed + 1))
else
  passed=$((passed + 1))
fi

# Measurements, validate, calibrate and import.
abs_layout="$(cd "$(dirname "$layout")" && pwd)/$(basename "$layout")"
printf '{"schema": "rigsim-measurements/1", "rig": {"layout": "%s"}, "series": [{"tool": "t", "test": "peer_copy", "peer_access": true, "points": [{"src": 0, "dst": 9, "bytes": 1000000, "gbps": 5}]}]}' "$abs_layout" >"$tmp/m_bad_gpu.json"
printf '{"schema": "rigsim-measurements/1", "rig": {}, "series": [{"tool": "t", "test": "host_copy", "direction": "h2d", "points": [{"gpu": 0, "bytes": 1000000, "gbps": 5}]}]}' >"$tmp/m_nolayout.json"
printf '{"schema": "rigsim-measurements/1", "rig": {"layout": "%s"}, "series": [{"tool": "t", "test": "host_copy", "direction": "h2d", "points": [{"gpu": 0, "bytes": 268435456, "gbps": 2}]}]}' "$abs_layout" >"$tmp/m_far.json"
expect_error "/series/0/points/0" validate "$tmp/m_bad_gpu.json"
expect_error "no layout" validate "$tmp/m_nolayout.json"
expect_error "past the limit" validate "$tmp/m_far.json" --max-factor 3
echo '{}' >"$tmp/existing_profile.json"
expect_error "--force" calibrate "$tmp/m_far.json" -o "$tmp/existing_profile.json"
printf '        GPU0    GPU1\nGPU0     X      OK\nGPU1    OK      X\n' >"$tmp/p2p_matrix.txt"
expect_error "topo -p2p" import nvidia-smi-topo "$tmp/p2p_matrix.txt" --gpu rtx-4090 --cpu epyc-7002 -o "$tmp/never.json"
printf '        GPU0    GPU1\nGPU0     X      PIX\nGPU1    PIX      X\n' >"$tmp/matrix.txt"
expect_error "--gpu" import nvidia-smi-topo "$tmp/matrix.txt" --cpu epyc-7002 -o "$tmp/never.json"
[ -e "$tmp/never.json" ] && { echo "FAIL: import left an output file"; failed=$((failed + 1)); }

expect_error 'did you mean "rtx-3060-12gb"' catalog show rtx-3060
expect_error "expected a part's key" catalog show
out=$(timeout 60 "$rigsim" catalog show rtx-4090 2>&1)
if grep -q "^Source: " <<<"$out" && grep -q "memory_bw_gbs: 1008" <<<"$out"; then passed=$((passed + 1)); else
  echo "FAIL: catalog show rtx-4090 lacks its values or source"; failed=$((failed + 1)); fi

# User parts: a catalog file (`--catalog`, before or after the sub-command), checked like a layout.
printf '{"gpus": [{"key": "my-4090-48gb", "like": "rtx-4090", "name": "RTX 4090 48GB", "memory_gb": 48, "source": "my card"}]}' >"$tmp/parts.json"
printf '{"gpus": [{"key": "my-4090-48gb", "like": "rtx-4090", "name": "RTX 4090 48GB", "memory_gb": 48000, "source": "my card"}]}' >"$tmp/parts_mb.json"
expect_error "parts_mb.json: /gpus/0/memory_gb: expected a value from 0.5 to 2048" --catalog "$tmp/parts_mb.json" catalog
expect_error "does-not-exist.json" catalog --catalog "$tmp/does-not-exist.json"
out=$(timeout 60 "$rigsim" catalog show my-4090-48gb --catalog "$tmp/parts.json" 2>&1)
if grep -q "memory_gb: 48$" <<<"$out" && grep -q "^Declared: .*parts.json /gpus/0" <<<"$out"; then passed=$((passed + 1)); else
  echo "FAIL: a --catalog part is not listed with its values and origin:"; echo "$out" | head -5; failed=$((failed + 1)); fi
# A layout written only with parts of its own (GPU, CPU, chipset) runs like any other.
own="$src/scenarios/examples/own-parts.json"
for cmd in "topo $own" "bench $own -b 1M -e 4M" "p2p $own"; do
  # shellcheck disable=SC2086
  if out=$(timeout 120 "$rigsim" $cmd 2>&1) && grep -q "RTX 4090 48GB\|my-4090-48gb\|gpu0" <<<"$out"; then
    passed=$((passed + 1))
  else
    echo "FAIL: rigsim $cmd on a layout of its own parts:"; echo "$out" | tail -5; failed=$((failed + 1))
  fi
done
echo "bad input: $passed passed, $failed failed"
[ $failed -eq 0 ]
