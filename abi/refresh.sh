#!/usr/bin/env bash
# Rewrites the ABI baseline (abi/libkbench.abi) and the export list
# (abi/kbench.symbols) from a built library. Run it on purpose, from a
# RelWithDebInfo or Debug build (abidw needs DWARF), when a release changes
# the ABI: after adding functions (minor version) or moving the major
# version. Commit both files with the change (docs/compatibility.md).
#
#   bash abi/refresh.sh build/libkbench.so
set -euo pipefail
lib=${1:?usage: refresh.sh path/to/libkbench.so}
src=$(cd "$(dirname "$0")/.." && pwd)
readelf -S "$lib" | grep -q '\.debug_info' || { echo "$lib has no debug information; build RelWithDebInfo" >&2; exit 1; }
# shellcheck source=abidw_flags.sh
. "$src/abi/abidw_flags.sh"
abidw "${abidw_flags[@]}" --out-file "$src/abi/libkbench.abi" "$lib"
{
  echo "# Every symbol libkbench.so exports (the C API of include/kbench.h), sorted."
  echo "# tests/support/check_exports.cmake compares the library against this list;"
  echo "# abi/refresh.sh rewrites it. docs/compatibility.md says when that is allowed."
  nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBRVW]$/ && $3 ~ /^kb_/ {sub(/@.*/, "", $3); print $3}' | LC_ALL=C sort
} >"$src/abi/kbench.symbols"
echo "wrote abi/libkbench.abi and abi/kbench.symbols ($(grep -vc '^#' "$src/abi/kbench.symbols") symbols)"
