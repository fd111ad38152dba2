#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz, a clang project of its own) into
# ./build-fuzz (or $BUILD_FUZZ), replays every committed corpus, then fuzzes
# each target for $FUZZ_SECONDS (default 60) seconds. New inputs that add
# coverage go to build-fuzz/corpus/<target>/ (not the committed corpus); a
# finding stops the run and leaves crash-*/leak-*/timeout-* files in
# build-fuzz/findings/<target>/: add the file to tests/fuzz/corpus/<target>/
# and fix the bug (docs/fuzzing.md).
#
#   scripts/run-fuzz.sh                 every target, 60 s each
#   FUZZ_SECONDS=600 scripts/run-fuzz.sh expr task_loader
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD_FUZZ:-build-fuzz}
SECONDS_EACH=${FUZZ_SECONDS:-60}
JOBS=${FUZZ_BUILD_JOBS:-2}
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(task_loader candidate_document expr frame_decoder extract include_scan)

command -v clang++ >/dev/null || { echo "run-fuzz: needs clang++ with libFuzzer (Debian: apt-get install clang)" >&2; exit 1; }
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S tests/fuzz -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
      "${launcher[@]}" >/dev/null
cmake --build "$BUILD" -j "$JOBS" --target "${targets[@]/#/fuzz_}"

status=0
for t in "${targets[@]}"; do
  seeds=tests/fuzz/corpus/$t
  work=$BUILD/corpus/$t
  findings=$BUILD/findings/$t
  mkdir -p "$work" "$findings"
  echo "== fuzz_$t: replaying $seeds"
  "$BUILD/fuzz_$t" -runs=0 "$seeds"
  echo "== fuzz_$t: fuzzing for ${SECONDS_EACH}s"
  # -timeout: one input taking 10 s is a hang; -rss_limit_mb: a parser must
  # not need 2 GB for any input the limits let through.
  # A fixed seed (FUZZ_SEED, default 1): CI explores the same inputs each run,
  # so a red run is a change's doing and not the dice's. Set another seed, or
  # FUZZ_SEED=0 for a random one, to explore further.
  if ! "$BUILD/fuzz_$t" -seed="${FUZZ_SEED:-1}" -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 \
        -max_len=65536 -artifact_prefix="$findings/" -print_final_stats=1 "$work" "$seeds" \
        2> "$BUILD/fuzz_$t.log"; then
    echo "fuzz_$t: FINDING (log: $BUILD/fuzz_$t.log, input: $findings/)" >&2
    tail -40 "$BUILD/fuzz_$t.log" >&2
    status=1
  else
    grep -E "stat::number_of_executed_units|stat::new_units_added" "$BUILD/fuzz_$t.log" | sed "s/^/fuzz_$t: /"
  fi
done
exit $status
