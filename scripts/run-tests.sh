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
# The sanitizer build (docs/sanitizers.md): ASan + UBSan over every CPU
# test. SANITIZE=0 skips it; so does a CTest filter given as arguments. The
# TSan build (scripts/run-sanitizers.sh thread) is not run here yet: see
# docs/sanitizers.md for what it reports.
if [ "${SANITIZE:-1}" != 0 ] && [ $# -eq 0 ]; then
  bash scripts/run-sanitizers.sh address
fi
