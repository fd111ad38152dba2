#!/usr/bin/env bash
# Fails on an incompatible ABI change of libkbench against the baseline in
# abi/libkbench.abi, unless the major version (the SONAME) moved.
# Compatible changes (a new function) pass, with abidiff's report.
#
#   check_abi.sh LIBRARY SOURCE_DIR
# docs/compatibility.md says when and how to refresh the baseline.
set -uo pipefail
lib=$1 src=$2
baseline=$src/abi/libkbench.abi
if ! command -v abidw >/dev/null || ! command -v abidiff >/dev/null; then
  echo "skipped: abidw/abidiff not found (Debian: abigail-tools; scripts/setup.sh installs it)"
  exit 77
fi
if ! readelf -S "$lib" | grep -q '\.debug_info'; then
  echo "skipped: $lib has no debug information (abidiff needs DWARF: build RelWithDebInfo or Debug)"
  exit 77
fi
# shellcheck source=abidw_flags.sh
. "$src/abi/abidw_flags.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
abidw "${abidw_flags[@]}" --out-file "$tmp/current.abi" "$lib" || { echo "FAIL: abidw failed on $lib"; exit 1; }

soname_of() { sed -n 's/.*soname=.\(libkbench\.so\.[0-9]*\).*/\1/p' "$1" | head -1; }
old=$(soname_of "$baseline") new=$(soname_of "$tmp/current.abi")
if [ -z "$old" ] || [ -z "$new" ]; then
  echo "FAIL: no SONAME in the baseline ($old) or the library ($new)"
  exit 1
fi
if [ "$old" != "$new" ]; then
  echo "the major version moved ($old -> $new): incompatible changes are allowed;"
  echo "refresh the baseline for the new major version: bash abi/refresh.sh $lib"
  exit 0
fi
# --no-added-syms: new functions are compatible (a minor version adds them);
# libabigail also counts enumerators appended to an enum as harmless. What
# is left (a removed or changed function, a struct whose layout changed)
# breaks programs built against the baseline.
abidiff --no-added-syms "$baseline" "$tmp/current.abi" >"$tmp/report.txt" 2>&1
rc=$?
# abidiff's status is a bit field: 1 error, 2 usage error, 4 ABI change,
# 8 incompatible ABI change.
if (( rc & 3 )); then
  cat "$tmp/report.txt"
  echo "FAIL: abidiff could not compare (status $rc)"
  exit 1
fi
if (( rc & 12 )); then
  cat "$tmp/report.txt"
  echo "FAIL: the ABI changed incompatibly against $baseline (same SONAME $new)."
  echo "Programs built against the released library would break. Undo the change, or make it"
  echo "compatibly (a new function; a new options struct version: docs/compatibility.md), or"
  echo "move KB_VERSION_MAJOR (the SONAME follows) and refresh the baseline (bash abi/refresh.sh)."
  echo "Appending a field to a versioned options struct is compatible by kbench's rules, but changes"
  echo "the struct's size: bump its ..._VERSION and refresh the baseline in the same commit."
  exit 1
fi
abidiff "$baseline" "$tmp/current.abi" >"$tmp/all.txt" 2>&1
if (( $? & 4 )); then
  cat "$tmp/all.txt"
  echo "compatible ABI additions (above): fine within a major version; refresh the baseline when releasing."
else
  echo "ABI identical to the baseline ($new)"
fi
exit 0
