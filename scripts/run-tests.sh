#!/usr/bin/env bash
# Sets up, builds and runs every test. Tests labelled `gpu` need a CUDA
# device and are reported as skipped (exit code 77) without one.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
BUILD=${BUILD:-build}
cd "$BUILD"
ctest --output-on-failure -j "$(nproc)" --timeout 900 "$@"
