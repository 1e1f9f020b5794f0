#!/usr/bin/env bash
# Installs what is missing (Debian 12 packages), then configures and builds rigsim in ./build.
# Safe to run again: installs nothing when everything is present and rebuilds incrementally.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
packages=(cmake g++ make pkg-config libsimgrid-dev libboost-graph-dev nlohmann-json3-dev libgtest-dev
          libcli11-dev libpugixml-dev libbenchmark-dev python3)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
jobs=${RIGSIM_JOBS:-2}
cmake -S "$here" -B "$here/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo ${RIGSIM_CMAKE_ARGS:-} >"$here/build.configure.log" 2>&1 ||
  { cat "$here/build.configure.log"; exit 1; }
grep -A12 "rigsim configuration summary" "$here/build.configure.log" || true
cmake --build "$here/build" -j "$jobs"
