#!/usr/bin/env bash
# scripts/run-tests.sh runs every part (build, tests, fuzz, ASan, TSan) even
# when an earlier one fails, and fails at the end naming the parts that
# failed. Runs a copy of it whose parts are stubs: the build fails, the
# fuzz replay fails, the others pass and leave a mark.
#
#   run_tests_parts.sh SOURCE_DIR
set -euo pipefail
src=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/scripts" "$work/bin" "$work/build"
cp "$src/scripts/run-tests.sh" "$work/scripts/"
cat > "$work/scripts/build.sh" <<'S'
touch "$(dirname "$0")/../ran-build"; exit 1
S
cat > "$work/scripts/run-fuzz.sh" <<'S'
touch "$(dirname "$0")/../ran-fuzz"; exit 1
S
cat > "$work/scripts/run-sanitizers.sh" <<'S'
touch "$(dirname "$0")/../ran-$1"
S
cat > "$work/bin/ctest" <<'S'
#!/bin/sh
touch ../ran-ctest
S
chmod +x "$work/bin/ctest"
set +e
# Every part runs whatever the caller's settings (SANITIZE=0 and
# FUZZ_SECONDS=0 skip parts on purpose).
PATH="$work/bin:$PATH" env -u SANITIZE -u FUZZ_SECONDS bash "$work/scripts/run-tests.sh" >"$work/out.txt" 2>&1
rc=$?
set -e
cat "$work/out.txt"
[ $rc -eq 1 ] || { echo "FAIL: run-tests.sh exited $rc with failing parts, not 1" >&2; exit 1; }
for part in build ctest fuzz address thread; do
  [ -f "$work/ran-$part" ] || { echo "FAIL: the $part part did not run after an earlier part failed" >&2; exit 1; }
done
grep -q "FAILED: build fuzz" "$work/out.txt" || { echo "FAIL: the summary does not name the failed parts" >&2; exit 1; }
grep -qE "^  tests: [0-9]+ s$" "$work/out.txt" || { echo "FAIL: no time for the tests part" >&2; exit 1; }
echo "ok: every part ran; the failed ones are named"
