#!/usr/bin/env bash
# SimGrid actors run on 16 KiB stacks without guard pages (engine/sg_session.cpp, kStackKiB): an overflow
# there would damage the heap in silence. This runs every kind of simulation (p2p, ring and tree
# collectives across nodes, host copies, a training step with pipeline and tensor parallelism, a
# compare) on half that stack, 8 KiB, behind a guard page (RIGSIM_STACK_KIB), where an overflow is a
# segmentation fault: passing keeps the default at twice what the deepest actor needs.
# Usage: stack_margin.sh RIGSIM_BINARY SOURCE_DIR
set -u
rigsim=$1
src=$2
export RIGSIM_STACK_KIB=${RIGSIM_STACK_KIB:-8}
failed=0
run() {
  if ! "$rigsim" "$@" >/dev/null 2>/tmp/rigsim-stack-margin.err; then
    echo "FAIL on $RIGSIM_STACK_KIB KiB stacks: rigsim $*"
    cat /tmp/rigsim-stack-margin.err
    failed=$((failed + 1))
  fi
}
layouts="$src/scenarios/layouts"
run p2p "$layouts/supermicro-4028gr-tr2-x10drg.json"
run bench "$layouts/dgx-a100.json" --nodes 4 -b 8 -e 64M -f 8
run bench "$layouts/dgx1-v100.json" --nodes 2 --op all_gather -b 1M -e 16M
run bench "$layouts/epyc-rome-7x3090.json" --op alltoall -b 1M -e 4M
for s in "$src"/scenarios/training/*.json; do
  run run "$s"
done
run compare
[ "$failed" -eq 0 ] && echo "all simulations ran on $RIGSIM_STACK_KIB KiB stacks"
exit "$failed"
