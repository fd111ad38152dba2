#!/usr/bin/env bash
# The README's first command (scripts/run-main.sh) builds the CMake target
# kbench_main before anything else: it must reach the CLI, its worker and
# the oracle library, and no test, example, benchmark or binding (those are
# built by scripts/run-tests.sh), so that a 2-core machine shows the first
# output early.
#
#   main_target.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1 src=$2
[ -f "$build/build.ninja" ] || { echo "skipped: $build is not a Ninja build"; exit 77; }
# What the target itself names (query), and everything it builds from (inputs).
direct=$(ninja -C "$build" -t query kbench_main | sed 's/^ *//')
inputs=$(ninja -C "$build" -t inputs kbench_main)
for want in kbench kbench-worker libkbench_oracles.so libkbench_gpu_compare.so; do
  grep -qx "$want" <<<"$direct" || { echo "FAIL: kbench_main does not build $want" >&2; exit 1; }
done
# Sources of tests, bindings, examples or benchmarks (the oracles are the
# library `validate --oracle` loads), and the outputs of test or binding targets.
extra=$(grep -E "^$src/(tests|bindings|examples|bench)/" <<<"$inputs" | grep -vE "^$src/tests/oracles/" || true)
extra+=$'\n'$(grep -E "(^|/)(kbench_[a-z_]*tests|kbench_python|_capi)" <<<"$inputs" || true)
extra=$(grep . <<<"$extra" || true)
if [ -n "$extra" ]; then
  echo "FAIL: kbench_main builds more than the main job needs:" >&2
  echo "$extra" | head -20 >&2
  exit 1
fi
echo "ok: kbench_main builds $(wc -l <<<"$inputs") inputs, no test or binding"
