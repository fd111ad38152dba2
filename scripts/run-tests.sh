#!/usr/bin/env bash
# Sets up, builds and runs every test. Tests labelled `gpu` need a CUDA
# device and are reported as skipped (exit code 77) without one.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
BUILD=${BUILD:-build}
cd "$BUILD"
ctest --output-on-failure -j "$(nproc)" --timeout 900 "$@"
cd - >/dev/null
# Every fuzz target for a short while (docs/fuzzing.md): a finding fails the
# run. FUZZ_SECONDS=0 skips it; a CTest filter given as arguments skips it too.
if [ "${FUZZ_SECONDS:-20}" != 0 ] && [ $# -eq 0 ]; then
  FUZZ_SECONDS=${FUZZ_SECONDS:-20} bash scripts/run-fuzz.sh
fi
# The sanitizer builds (docs/sanitizers.md): ASan + UBSan over every CPU
# test, TSan over the threaded ones. SANITIZE=0 skips them; so does a CTest
# filter given as arguments.
if [ "${SANITIZE:-1}" != 0 ] && [ $# -eq 0 ]; then
  bash scripts/run-sanitizers.sh address
  bash scripts/run-sanitizers.sh thread
fi
