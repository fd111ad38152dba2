#!/usr/bin/env bash
# Installs the build into a temporary prefix, MOVES the prefix (to prove the
# install is relocatable), then builds two consumers against the moved copy,
# one through pkg-config alone and one through find_package(kbench CONFIG)
# alone, and runs them and the installed CLI with an empty environment
# (no LD_LIBRARY_PATH, no KBENCH_*): each must find its library and the
# worker by itself.
#
#   run.sh BUILD_DIR SOURCE_DIR WORK_DIR CMAKE CC CXX
set -euo pipefail
build=$1 src=$2 work=$3 cmake=$4 cc=$5 cxx=$6
task=$src/tasks/elementwise/vector_add_f32/task.json
cand=$src/tasks/elementwise/vector_add_f32/candidates/correct.cu
clean_path=/usr/local/bin:/usr/bin:/bin
fail() { echo "FAIL: $*" >&2; exit 1; }
step() { echo "== $*"; }

rm -rf "$work"
mkdir -p "$work"
step "install into $work/staged"
"$cmake" --install "$build" --prefix "$work/staged" >"$work/install.log"
mv "$work/staged" "$work/moved"
prefix=$work/moved
libdir=
for d in lib lib64 lib/*-linux-gnu; do
  if [ -e "$prefix/$d/pkgconfig/kbench.pc" ]; then libdir=$d; break; fi
done
[ -n "$libdir" ] || fail "no kbench.pc under $prefix"

step "installed files"
for f in include/kbench.h "$libdir/libkbench.a" "$libdir/pkgconfig/kbench.pc" \
         "$libdir/cmake/kbench/kbenchConfig.cmake" "$libdir/cmake/kbench/kbenchConfigVersion.cmake" \
         bin/kbench libexec/kbench-worker; do
  [ -e "$prefix/$f" ] || fail "$f is not installed"
done
soname=$(readelf -d "$prefix/$libdir/libkbench.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
major=$(sed -n 's/^#define KB_VERSION_MAJOR \([0-9]*\)/\1/p' "$src/include/kbench.h")
[ "$soname" = "libkbench.so.$major" ] || fail "SONAME is '$soname', expected libkbench.so.$major"
for bin in "$libdir/libkbench.so" bin/kbench libexec/kbench-worker; do
  if readelf -d "$prefix/$bin" | grep -E 'R(UN)?PATH' | grep -qF "$(cd "$build" && pwd -P)"; then
    fail "$bin's RPATH points into the build tree: $(readelf -d "$prefix/$bin" | grep -E 'R(UN)?PATH')"
  fi
done
echo "SONAME $soname; no RPATH into the build tree"

step "pkg-config consumer"
pc() { env -i PATH="$clean_path" PKG_CONFIG_PATH="$prefix/$libdir/pkgconfig" pkg-config "$@" kbench; }
pc_prefix=$(pc --variable=prefix)
[ "$(cd "$pc_prefix" && pwd -P)" = "$(cd "$prefix" && pwd -P)" ] ||
  fail "kbench.pc's prefix is $pc_prefix, not the moved prefix $prefix"
pc --static --libs | grep -q -- -lnvrtc || fail "pkg-config --static --libs lacks -lnvrtc: $(pc --static --libs)"
if pc --libs | grep -q -- -lnvrtc; then fail "NVRTC leaks into the shared link flags: $(pc --libs)"; fi
mkdir -p "$work/pc"
# shellcheck disable=SC2046
env -i PATH="$clean_path" "$cc" -std=c99 -Wall -Werror -o "$work/pc/consumer" "$src/tests/consumers/consumer.c" \
  $(pc --cflags --libs) -Wl,-rpath,"$(pc --variable=libdir)"
env -i PATH="$clean_path" "$work/pc/consumer" "$task" "$cand" in_process | tee "$work/pc/in_process.txt"
grep -q "^kbench $major\." "$work/pc/in_process.txt" || fail "no version line"
grep -q "bytes of PTX" "$work/pc/in_process.txt" || fail "the pkg-config consumer did not compile to PTX"
env -i PATH="$clean_path" "$work/pc/consumer" "$task" "$cand" worker | tee "$work/pc/worker.txt"
want_worker=$(cd "$prefix/libexec" && pwd -P)/kbench-worker
grep -qxF "worker: $want_worker" "$work/pc/worker.txt" ||
  fail "the library did not start the worker of its own prefix ($want_worker)"

step "find_package consumer"
env -i PATH="$clean_path" "$cmake" -S "$src/tests/consumers/cmake_project" -B "$work/cm" \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" >"$work/cm.log" 2>&1 ||
  { cat "$work/cm.log"; fail "configuring the find_package consumer failed"; }
env -i PATH="$clean_path" "$cmake" --build "$work/cm" >>"$work/cm.log" 2>&1 ||
  { cat "$work/cm.log"; fail "building the find_package consumer failed"; }
grep -q "kbench_DIR.*$prefix" "$work/cm/CMakeCache.txt" || fail "find_package found another kbench: $(grep kbench_DIR "$work/cm/CMakeCache.txt")"
env -i PATH="$clean_path" "$work/cm/consumer_shared" "$task" "$cand" worker | tee "$work/cm/shared.txt"
grep -q "bytes of PTX" "$work/cm/shared.txt" || fail "the find_package consumer (shared) did not compile"
grep -qxF "worker: $want_worker" "$work/cm/shared.txt" ||
  fail "the find_package consumer's library did not start the worker of its own prefix ($want_worker)"
env -i PATH="$clean_path" "$work/cm/consumer_static" "$task" "$cand" in_process | tee "$work/cm/static.txt"
grep -q "bytes of PTX" "$work/cm/static.txt" || fail "the find_package consumer (static) did not compile"

step "installed CLI"
env -i PATH="$clean_path" "$prefix/bin/kbench" --version | tee "$work/cli.txt"
env -i PATH="$clean_path" "$prefix/bin/kbench" compile --no-device "$task" "$cand" | tee -a "$work/cli.txt"
grep -q "ptx via nvrtc" "$work/cli.txt" || fail "the installed CLI did not compile"
# Its helpers come from the moved prefix, not from the source tree it was built from.
env -i PATH="$clean_path" "$prefix/bin/kbench" info --no-device --json >"$work/info.json"
python3 - "$work/info.json" "$(cd "$prefix" && pwd -P)" <<'PY' || fail "the installed CLI's helpers are not its own prefix's"
import json, os, sys
helpers = json.load(open(sys.argv[1]))["helpers"]
prefix = sys.argv[2]
print("helpers:", helpers)
for key in ("worker", "programs_dir", "program_worker", "gpu_compare_library"):
    path = helpers.get(key)
    assert path and os.path.realpath(path).startswith(prefix + "/"), f"{key}: {path!r} is not under {prefix}"
PY

step "SameMajorVersion: asking for the next major version fails"
mkdir -p "$work/next_major"
cat >"$work/next_major/CMakeLists.txt" <<CM
cmake_minimum_required(VERSION 3.18)
project(next_major NONE)
find_package(kbench $((major + 1)) CONFIG QUIET)
if(kbench_FOUND)
  message(FATAL_ERROR "kbench \${kbench_VERSION} claimed to be compatible with major version $((major + 1))")
endif()
CM
env -i PATH="$clean_path" "$cmake" -S "$work/next_major" -B "$work/next_major/build" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null ||
  fail "the package claims compatibility with the next major version"
echo "ok"
