#!/usr/bin/env bash
# Configures and builds kbench into ./build (or $BUILD): every target, or
# only those named (scripts/run-main.sh builds kbench_main: the CLI, its
# worker and what they load, before any test).
#
#   scripts/build.sh                 # everything: library, CLI, tests, bindings
#   scripts/build.sh kbench_main     # what `kbench` needs to run
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cuda_home=${CUDA_HOME:-${CUDA_PATH:-/usr/local/cuda}}
export PATH="$cuda_home/bin:$PATH"
BUILD=${BUILD:-build}
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=${BUILD_TYPE:-RelWithDebInfo} >/dev/null
targets=()
[ $# -gt 0 ] && targets=(--target "$@")
cmake --build "$BUILD" -j "$(nproc)" "${targets[@]}"
