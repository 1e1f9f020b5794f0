#!/usr/bin/env bash
# Builds rigsim and its tests with AddressSanitizer + UndefinedBehaviorSanitizer in build-asan/ and runs
# the whole suite there but DevCaseFit (CI runs this after the normal suite). Under ASan the engine
# switches SimGrid to thread contexts (engine/sg_session.cpp: its raw/ucontext stack switching is
# invisible to ASan).
# Usage: tools/sanitize.sh [ctest arguments]   (RIGSIM_JOBS=N for the build)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build="$here/build-asan"
mkdir -p "$build"
cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRIGSIM_SANITIZE=ON -DRIGSIM_BUILD_BENCH=OFF \
  -DRIGSIM_ENABLE_CUDA=OFF ${RIGSIM_CMAKE_ARGS:-} >"$build/configure.log" 2>&1 || { cat "$build/configure.log"; exit 1; }
cmake --build "$build" -j "${RIGSIM_JOBS:-2}"
# Leaks: SimGrid's engine lives until the process exits by design (never freed), so leak checking is
# off; every other ASan error and any UB (-fno-sanitize-recover) fails the test that hit it.
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:strict_string_checks=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# DevCaseFit (the fit on every dev case: 4,235 forked simulations) is a statement about the
# model's accuracy, not about memory: under ASan each fork copies the shadow memory's page tables and
# it took 20.6 of the 22 minutes. Its code (model/fit.cpp, engine::run) runs under ASan in the Fit.*
# tests; the normal suite runs DevCaseFit itself. Arguments replace this default.
if [ "$#" -eq 0 ]; then set -- -E '^DevCaseFit\.'; fi
ctest --test-dir "$build" --output-on-failure -j "${RIGSIM_JOBS:-2}" "$@"
