#!/usr/bin/env bash
# End-to-end `rigsim sweep` / `sweep-merge` (issue 7): three --shard slices merged print exactly what the
# whole sweep prints (text and JSON); bad --shard values and bad slice sets fail cleanly with a message
# that names the problem and leave no output file.
# Usage: sweep.sh RIGSIM_BINARY SOURCE_DIR
set -u
rigsim=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
layout="$src/scenarios/layouts/consumer-2x3090-nvlink.json"
cat >"$tmp/s.json" <<'JSON'
{"name": "sweep-cli", "model": "gpt2-1.5b", "global_batch": 16, "micro_batch": 1, "seq_len": 1024,
 "dtype": "bf16", "optimizer": "adamw", "parallel": {"dp": 2}}
JSON

fail() { echo "FAIL: $*"; failed=$((failed + 1)); }

"$rigsim" sweep "$tmp/s.json" --layout "$layout" --top 7 -o "$tmp/full.txt" || fail "full sweep"
"$rigsim" sweep "$tmp/s.json" --layout "$layout" --json -o "$tmp/full.json" || fail "full sweep --json"
for k in 1 2 3; do
  "$rigsim" sweep "$tmp/s.json" --layout "$layout" --shard "$k/3" --json -o "$tmp/slice$k.json" || fail "slice $k/3"
done
"$rigsim" sweep-merge "$tmp/slice3.json" "$tmp/slice1.json" "$tmp/slice2.json" --top 7 -o "$tmp/merged.txt" ||
  fail "sweep-merge"
"$rigsim" sweep-merge "$tmp"/slice*.json --json -o "$tmp/merged.json" || fail "sweep-merge --json"
cmp -s "$tmp/full.txt" "$tmp/merged.txt" || fail "merged text differs from the full sweep's"
cmp -s "$tmp/full.json" "$tmp/merged.json" || fail "merged JSON differs from the full sweep's"

expect_error() {  # expect_error "phrase" args...
  local phrase=$1 out rc
  shift
  out=$(timeout 120 "$rigsim" "$@" -o "$tmp/out" 2>&1)
  rc=$?
  if [ $rc -ne 1 ]; then fail "rigsim $* exited $rc (want 1)"; return; fi
  grep -qF -- "$phrase" <<<"$out" || fail "rigsim $* did not say \"$phrase\": $out"
  [ ! -e "$tmp/out" ] || fail "rigsim $* left an output file"
}
for bad in 3/2 0/4 a/b 1/0 2; do expect_error "expected K/N" sweep "$tmp/s.json" --layout "$layout" --shard "$bad"; done
expect_error "missing slice(s) 2/3" sweep-merge "$tmp/slice1.json" "$tmp/slice3.json"
expect_error "appears twice" sweep-merge "$tmp/slice1.json" "$tmp/slice2.json" "$tmp/slice2.json" "$tmp/slice3.json"
expect_error "not the JSON of a sweep" sweep-merge "$tmp/s.json"
expect_error "belongs to another sweep" sweep-merge "$tmp/slice1.json" "$tmp/full.json"

if [ $failed -ne 0 ]; then echo "$failed failure(s)"; exit 1; fi
echo "sweep end-to-end: passed"
