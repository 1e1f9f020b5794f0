#!/usr/bin/env bash
# Fuzzes rigsim's readers with libFuzzer (clang, -fsanitize=fuzzer,address,undefined).
# Usage: tools/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]     (default 60 s; all targets)
#   targets: layout_json nccl_xml cost_model scenario measurements tool_output importers
# Builds in build-fuzz/ (clang), seeds each target from the repository (scenarios/, fuzz/corpus/) and,
# when present, ../shared/data; the growing corpus is kept in build-fuzz/corpus/<target>/ between runs.
# A crashing, leaking or hanging input is written to fuzz/regressions/<target>/ (commit it: the normal
# test suite replays that folder) and the script exits 1. Long runs: tools/fuzz.sh 3600.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(layout_json nccl_xml cost_model scenario measurements tool_output importers)
if ! command -v clang++ >/dev/null 2>&1 || ! echo 'extern "C" int LLVMFuzzerTestOneInput(const char*, unsigned long){return 0;}' |
    clang++ -x c++ -fsanitize=fuzzer - -o /tmp/rigsim-fuzz-probe 2>/dev/null; then
  echo "fuzz: installing clang and libFuzzer (clang, libclang-rt-dev)"
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends clang libclang-rt-dev >/dev/null
fi
build="$here/build-fuzz"
mkdir -p "$build"
CC=clang CXX=clang++ cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRIGSIM_FUZZ=ON \
  -DRIGSIM_BUILD_TESTS=OFF -DRIGSIM_BUILD_BENCH=OFF -DRIGSIM_ENABLE_CUDA=OFF ${RIGSIM_CMAKE_ARGS:-} >"$build/configure.log" 2>&1 ||
  { cat "$build/configure.log"; exit 1; }
cmake --build "$build" -j "${RIGSIM_JOBS:-2}" --target $(printf 'fuzz_%s ' "${targets[@]}")

seeds() {  # seeds TARGET: the folders its seed inputs come from
  case "$1" in
    layout_json) echo "$here/scenarios/layouts $here/scenarios/dev-cases/layouts $here/fuzz/corpus/layout_json" ;;
    nccl_xml) echo "$here/../shared/data/nccl-topo" ;;
    cost_model) echo "$here/fuzz/corpus/cost_model" ;;
    scenario) echo "$here/scenarios/training" ;;
    measurements) echo "$here/scenarios/dev-cases" ;;
    tool_output) echo "$here/../shared/data/nccl-tests $here/../shared/data/p2p" ;;
    importers) echo "$here/../shared/data/nvidia-smi-topo $here/../shared/data/hwloc" ;;
  esac
}
status=0
for t in "${targets[@]}"; do
  corpus="$build/corpus/$t"
  mkdir -p "$corpus" "$here/fuzz/regressions/$t"
  dirs=()
  for d in $(seeds "$t"); do [ -d "$d" ] && dirs+=("$d"); done
  echo "fuzz: $t for ${seconds}s (seeds: ${dirs[*]:-none})"
  if ! ASAN_OPTIONS=detect_leaks=1 "$build/fuzz/fuzz_$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
      -max_len=65536 -print_final_stats=1 -artifact_prefix="$here/fuzz/regressions/$t/" "$corpus" "${dirs[@]}" \
      >"$build/fuzz-$t.log" 2>&1; then
    echo "fuzz: $t FOUND A PROBLEM (input saved in fuzz/regressions/$t/):"
    grep -E "ERROR|SUMMARY|Test unit written" "$build/fuzz-$t.log" | head -5
    status=1
  else
    grep -E "stat::number_of_executed_units|cov:" "$build/fuzz-$t.log" | tail -2 | sed "s/^/fuzz: $t: /"
  fi
done
exit $status
