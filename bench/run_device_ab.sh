#!/usr/bin/env bash
# A change against its baseline on one GPU machine: `bench/run_device.sh
# MODE` on the working tree as it is (a), then again with PATCH applied (b),
# so that the two passes' figures compare (two machines may be an H100 and
# an H200). Each pass is packed into one file, $OUT/a.tgz and $OUT/b.tgz
# (the remote runner returns at most eight files), and its console's last
# lines are printed.
#
#   bash bench/run_device_ab.sh PATCH [MODE]      (MODE: programs by default)
#
# PATCH is a file `git apply` takes (untracked files travel with the working
# tree: `git diff main BRANCH > compare.patch`). run_device.sh's own knobs
# (RUN_WORKER_COSTS, PROGRAM_TESTS, BUILD_TARGETS, ...) apply to both
# passes; the second build is incremental.
set -u
PATCH=${1:?usage: bash bench/run_device_ab.sh PATCH [MODE]}
MODE=${2:-programs}
[ -f "$PATCH" ] || { echo "run_device_ab: no patch file '$PATCH'" >&2; exit 2; }
git apply --check "$PATCH" 2>/dev/null || patch --dry-run -p1 <"$PATCH" >/dev/null 2>&1 ||
  { echo "run_device_ab: '$PATCH' does not apply to this tree" >&2; exit 2; }
RETURN=${OUT:-$PWD/out-ab}
mkdir -p "$RETURN"
# GPU processes left by the pass before (a worker still exiting) share the
# card's bandwidth with the next pass's first figures: each pass waits up
# to 60 s for the card to have no compute process, and its console names
# any that stayed (pid, memory, command line).
quiet_gpu() {
  local apps i
  for i in $(seq 60); do
    apps=$(nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader 2>/dev/null)
    [ -z "$apps" ] && return 0
    sleep 1
  done
  echo "run_device_ab: GPU processes still running after 60 s:"
  echo "$apps" | while IFS=', ' read -r pid mem unit; do
    echo "  $pid $mem$unit $(tr '\0' ' ' </proc/$pid/cmdline 2>/dev/null | cut -c1-200)"
  done
}
pass() {  # pass NAME: run_device.sh into /tmp/NAME, packed into $RETURN/NAME.tgz
  local dir=/tmp/kbench-ab-$1
  rm -rf "$dir" && mkdir -p "$dir"
  quiet_gpu >"$dir/gpu_before.txt" 2>&1
  cat "$dir/gpu_before.txt"
  # OUT unset: run_device.sh writes everything under RUN_DIR, packed below.
  env -u OUT RUN_DIR="$dir" bash bench/run_device.sh "$MODE" >"$dir/console.txt" 2>&1
  echo "== pass $1: run_device.sh $MODE exited $?"
  tail -25 "$dir/console.txt"
  tar czf "$RETURN/$1.tgz" -C "$dir" --exclude=task-cache . 2>/dev/null
}
pass a
if git apply "$PATCH" 2>/dev/null || patch -p1 <"$PATCH" >/dev/null; then
  pass b
else
  echo "run_device_ab: '$PATCH' did not apply" >&2
  exit 1
fi
