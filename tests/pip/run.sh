#!/usr/bin/env bash
# `pip install` of kbench as a user does it: build the wheel from the source
# tree with pip (scikit-build-core, SWIG from PyPI), check that it is one
# abi3 wheel for Python 3.10+, install it into a fresh virtual environment,
# then, with an empty environment, import it, print kbench.version(), compile
# a candidate through a worker (found inside the wheel) and run the `kbench`
# console script.
#
#   run.sh SOURCE_DIR WORK_DIR PYTHON [CMAKE_LAUNCHER]
# WORK_DIR keeps the wheel's CMake build folder between runs (incremental).
# Skips (exit 77) when PyPI cannot be reached: the build needs its packages.
set -euo pipefail
src=$1 work=$2 python=$3 launcher=${4:-}
case "$launcher" in *-NOTFOUND) launcher="" ;; esac  # CMake's name for a program it did not find
task=$src/tasks/elementwise/vector_add_f32/task.json
cand=$src/tasks/elementwise/vector_add_f32/candidates/correct.cu
fail() { echo "FAIL: $*" >&2; exit 1; }
step() { echo "== $* ($(date +%T))"; }

if ! "$python" - <<'PY'
import sys, urllib.request
try:
    urllib.request.urlopen("https://pypi.org/simple/scikit-build-core/", timeout=15).read(1)
except Exception as e:
    print(f"skipped: PyPI cannot be reached ({e}); building the wheel needs scikit-build-core and swig from it")
    sys.exit(1)
PY
then exit 77; fi

version=$("$python" -c "
import re, sys
s = open(sys.argv[1]).read()
print('.'.join(re.search(r'#define KB_VERSION_%s (\d+)' % k, s).group(1) for k in ('MAJOR', 'MINOR', 'PATCH')))" "$src/include/kbench.h")

mkdir -p "$work"
rm -rf "$work/dist" "$work/venv"
step "build the wheel (pip wheel; the CMake build folder is $work/cmake-build)"
settings=(-C "build-dir=$work/cmake-build" -C "cmake.define.KBENCH_BUILTIN_ARCHS=${KBENCH_BUILTIN_ARCHS:-90}")
[ -n "$launcher" ] && settings+=(-C "cmake.define.CMAKE_CXX_COMPILER_LAUNCHER=$launcher")
"$python" -m pip wheel --no-deps --quiet -w "$work/dist" "${settings[@]}" "$src" >"$work/pip-wheel.log" 2>&1 ||
  { tail -60 "$work/pip-wheel.log"; fail "pip wheel failed"; }
wheels=("$work"/dist/kbench-*.whl)
[ ${#wheels[@]} -eq 1 ] || fail "expected one wheel, got: ${wheels[*]}"
wheel=${wheels[0]}
echo "$(basename "$wheel")"
case "$(basename "$wheel")" in
  kbench-"$version"-cp310-abi3-*.whl) ;;
  *) fail "the wheel is not kbench-$version-cp310-abi3-*: one wheel for Python 3.10+ needs the limited API" ;;
esac

step "install it into a fresh virtual environment"
"$python" -m venv "$work/venv"
"$work/venv/bin/python" -m pip install --quiet --no-deps "$wheel" >"$work/pip-install.log" 2>&1 ||
  { cat "$work/pip-install.log"; fail "pip install failed"; }

step "use it with an empty environment"
clean=(env -i "PATH=$work/venv/bin:/usr/local/bin:/usr/bin:/bin" "HOME=$work")
got=$("${clean[@]}" "$work/venv/bin/python" -c "import kbench; print(kbench.version())")
echo "kbench.version() = $got"
[ "$got" = "$version" ] || fail "kbench.version() is '$got', the header says $version"
(cd "$work" && "${clean[@]}" "$work/venv/bin/python" "$src/tests/pip/check_installed.py" "$task" "$cand" "$version")
"${clean[@]}" kbench --version | tee "$work/cli.txt"
grep -qx "kbench $version" "$work/cli.txt" || fail "the console script did not run the wheel's CLI"
"${clean[@]}" kbench compile "$task" "$cand" | tee -a "$work/cli.txt"
grep -q "ptx via nvrtc" "$work/cli.txt" || fail "the wheel's CLI did not compile"
echo "ok"
