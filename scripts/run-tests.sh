#!/usr/bin/env bash
# Sets up, builds and runs every test. Tests labelled `gpu` need a CUDA
# device and are reported as skipped (exit code 77) without one.
#
# The parts (build, tests, fuzz replay, ASan + UBSan, TSan) all run, also
# after one of them fails, each timed; the summary at the end names the
# parts that failed and the run fails if any did.
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
failed=()
times=()
# part NAME COMMAND...: runs one part, records its time and whether it failed.
part() {
  local name=$1 start=$SECONDS
  shift
  echo "== run-tests: $name ($(date +%T))"
  if "$@"; then times+=("$name: $((SECONDS - start)) s"); else
    times+=("$name: $((SECONDS - start)) s, FAILED"); failed+=("$name"); fi
}
tests() { (cd "$BUILD" && ctest --output-on-failure -j "$(nproc)" --timeout 900 "$@"); }

part build bash scripts/build.sh
# With the sanitizer builds to follow, the CPU tests (label unit) run once,
# under ASan + UBSan, and the plain build runs the rest: first the GPU and
# torch tests, then, after the ASan build, every CPU test that build does
# not have or leaves out (the bindings' and examples' tests, which it does
# not build; the install, wheel, ABI and exported-symbol tests). On the
# 2-core CI machine that keeps the whole run under 45 minutes. SANITIZE=0,
# or a CTest filter given as arguments, runs every test on the plain build.
export SANITIZE_EXCLUDE=${SANITIZE_EXCLUDE:-^(pip_install_wheel|install_consumers|abi_compatible_with_baseline|exported_symbols_are_kb_only)$}
sanitize=0
[ "${SANITIZE:-1}" != 0 ] && [ $# -eq 0 ] && sanitize=1
# plain_only: the CPU tests of the plain build that the ASan build does not
# run, on the plain build (all of them when the ASan build has none).
plain_only() {
  local re
  re=$(python3 - "$BUILD" "${BUILD_ASAN:-build-asan}" "$SANITIZE_EXCLUDE" <<'PY'
import json, os, re, subprocess, sys
def names(build):
    if not os.path.isdir(build):
        return set()
    p = subprocess.run(["ctest", "--show-only=json-v1", "-L", "unit"], cwd=build, capture_output=True, text=True)
    return {t["name"] for t in json.loads(p.stdout)["tests"]} if p.returncode == 0 else set()
plain, asan = names(sys.argv[1]), names(sys.argv[2])
left_out = re.compile(sys.argv[3])
only = sorted(n for n in plain if n not in asan or left_out.search(n))
if not plain:
    sys.exit("run-tests: the plain build lists no CPU test")
print("^(" + "|".join(re.sub(r"([.^$*+?()\[\]{}|\\])", r"\\\1", n) for n in only) + ")$" if only else "")
PY
) || return 1
  [ -n "$re" ] || return 0
  tests -R "$re"
}
if [ $sanitize = 1 ]; then
  part tests tests -LE '^unit$'
else
  part tests tests "$@"
fi
# Every fuzz target for a short while (docs/fuzzing.md): a finding fails the
# run. FUZZ_SECONDS=0 skips it; a CTest filter given as arguments skips it too.
if [ "${FUZZ_SECONDS:-10}" != 0 ] && [ $# -eq 0 ]; then
  part fuzz env FUZZ_SECONDS="${FUZZ_SECONDS:-10}" bash scripts/run-fuzz.sh
fi
# The sanitizer builds (docs/sanitizers.md): ASan + UBSan over every CPU
# test, TSan over the threaded ones. SANITIZE=0 skips them; so does a CTest
# filter given as arguments.
if [ $sanitize = 1 ]; then
  part asan bash scripts/run-sanitizers.sh address
  part tests-unsanitized plain_only
  part tsan bash scripts/run-sanitizers.sh thread
fi

echo "== run-tests: times"
printf '  %s\n' "${times[@]}"
if [ ${#failed[@]} -gt 0 ]; then
  echo "run-tests: FAILED: ${failed[*]}" >&2
  exit 1
fi
echo "run-tests: every part passed"
