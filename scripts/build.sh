#!/usr/bin/env bash
# Configures and builds kbench into ./build (or $BUILD).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cuda_home=${CUDA_HOME:-${CUDA_PATH:-/usr/local/cuda}}
export PATH="$cuda_home/bin:$PATH"
BUILD=${BUILD:-build}
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=${BUILD_TYPE:-RelWithDebInfo} >/dev/null
cmake --build "$BUILD" -j "$(nproc)"
