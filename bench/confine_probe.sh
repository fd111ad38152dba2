#!/usr/bin/env bash
# Which confinement CUDA tolerates on this machine (docs/isolation.md): scores
# one small program answer with confined workers, first leaving out each
# combination of mechanisms ($KBENCH_CONFINE_SKIP), then with every mechanism
# and more paths allowed ($KBENCH_CONFINE_READ / _WRITE), and prints each
# verdict. The scores run side by side.
#   bash bench/confine_probe.sh [BUILD]
set -u
BUILD=${1:-build-device}
export PATH=/usr/local/cuda/bin:$PATH
if [ ! -x "$BUILD/kbench" ]; then
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DKBENCH_BUILTIN_ARCHS=90 >/dev/null 2>&1
  cmake --build "$BUILD" -j "$(nproc)" --target kbench_cli kbench_worker kbench_gpu_compare kbench_cupti >/dev/null 2>&1 ||
    { echo "confine_probe: the build failed"; exit 1; }
fi
uname -r
"$BUILD/kbench" info --json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin).get("sandbox"))'
P=tests/programs/problems/kernelbench/2_softmax_rows.py
A=tests/programs/candidates/softmax_torch.py
dir=$(mktemp -d)
variants=(
  "skip=none" "skip=userns" "skip=landlock" "skip=userns,landlock"
  "read=/dev" "read=/" "write=/dev" "write=/tmp" "read=/etc:/run:/var:/opt" "write=/proc:/sys" "write=/"
)
[ -n "${PROBE_VARIANTS:-}" ] && read -r -a variants <<<"$PROBE_VARIANTS"
for v in "${variants[@]}"; do
  skip=; read=; write=
  case $v in skip=*) skip=${v#skip=} ;; read=*) read=${v#read=} ;; write=*) write=${v#write=} ;; esac
  ( KBENCH_CONFINE=1 KBENCH_CONFINE_SKIP=$skip KBENCH_CONFINE_READ=$read KBENCH_CONFINE_WRITE=$write \
      timeout 180 "$BUILD/kbench" score "$P" "$A" --json >"$dir/${v//[\/:,=]/_}.json" 2>&1 ) &
done
wait
for v in "${variants[@]}"; do
  python3 - "$v" "$dir/${v//[\/:,=]/_}.json" <<'PY'
import json, sys
v, path = sys.argv[1], sys.argv[2]
raw = open(path).read()
try:
    j = json.loads(raw[raw.index("{"):])
    verdict = j.get("verdict") or (j.get("error") or {}).get("status")
    why = "" if j.get("verdict") == "pass" else json.dumps(j)[:300]
    print("%-28s %-12s sandbox=%s %s" % (v, verdict, j.get("sandbox"), why))
except Exception:
    print("%-28s unparsed: %s" % (v, raw[-300:]))
PY
done
