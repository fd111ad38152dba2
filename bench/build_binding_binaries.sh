#!/usr/bin/env bash
# Builds the Go and Rust bindings' test and example binaries into .bindbin/,
# for a GPU machine that has neither toolchain: the lead carries the folder
# there and bench/run_device.sh runs what it finds in it.
#
#   bash bench/build_binding_binaries.sh [BUILD_DIR]     (default: build)
#
# BUILD_DIR must hold a built libkbench.so and kbench-worker (the bindings are
# compiled against include/kbench.h and linked against that library). Needs
# go, swig and cargo here; nothing is downloaded (GOPROXY=off, cargo
# --offline). Output:
#   .bindbin/lib/          libkbench.so.MAJOR and kbench-worker beside it: the
#                          binaries' RPATH is $ORIGIN/../lib, so the folder
#                          runs anywhere; run_device.sh puts the device's own
#                          build first with LD_LIBRARY_PATH instead
#   .bindbin/go/kbench.test        `go test -c` of bindings/go (TestScoreOnGPU scores on a GPU)
#   .bindbin/go/kbench-score       the score example as a program (bindings/go/cmd/kbench-score)
#   .bindbin/rust/test-*           `cargo test --no-run` binaries (score_gpu scores on a GPU)
#   .bindbin/rust/example-*        the examples (score, compile_only)
# Debug information is stripped: the folder is copied to the GPU machine,
# which takes at most 64 MiB of ignored files.
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
build=$(cd "${1:-build}" && pwd)
out=$src/.bindbin
[ -e "$build/libkbench.so" ] && [ -x "$build/kbench-worker" ] ||
  { echo "no libkbench.so and kbench-worker in $build: build kbench first" >&2; exit 1; }
for tool in go swig; do command -v $tool >/dev/null || { echo "$tool not found" >&2; exit 1; }; done
cargo=$(command -v cargo || echo "$HOME/.cargo/bin/cargo")
[ -x "$cargo" ] || { echo "cargo not found" >&2; exit 1; }

rm -rf "$out"
mkdir -p "$out/lib" "$out/go" "$out/rust"
soname=$(readelf -d "$build/libkbench.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
cp -L "$build/libkbench.so" "$out/lib/$soname"
cp "$build/kbench-worker" "$out/lib/kbench-worker"
rpath='$ORIGIN/../lib'

echo "== Go ($(go version | awk '{print $3}'))"
(
  cd bindings/go
  export GOPATH=$build/bindbin-go/gopath GOCACHE=$build/bindbin-go/cache GOPROXY=off GOWORK=off GOFLAGS=-buildvcs=false
  # The go tool caches swig's output by the .swig file alone, not by the
  # kbench.h it includes (bindings/go/CMakeLists.txt does the same): start afresh.
  rm -rf "$GOCACHE"
  export CGO_ENABLED=1 CGO_CFLAGS="-I$src/include" CGO_LDFLAGS="-L$build -Wl,-rpath,$rpath"
  go test -c -o "$out/go/kbench.test" .
  go build -o "$out/go/kbench-score" ./cmd/kbench-score
)

echo "== Rust ($("$cargo" --version))"
(
  cd bindings/rust
  export PATH="$(dirname "$cargo"):$PATH" CARGO_TARGET_DIR=$build/bindbin-cargo KBENCH_LIB_DIR=$build
  export RUSTFLAGS="-C link-arg=-Wl,-rpath,$rpath"
  # Every test and example executable cargo builds, copied under its target's name.
  { "$cargo" test --offline --locked --no-run --message-format=json
    "$cargo" build --offline --locked --examples --message-format=json; } 2>"$build/bindbin-cargo.log" |
    python3 -c '
import json, shutil, sys
out = sys.argv[1]
for line in sys.stdin:
    try:
        m = json.loads(line)
    except ValueError:
        continue
    if m.get("reason") != "compiler-artifact" or not m.get("executable"):
        continue
    kind = m["target"]["kind"][0]
    if m["profile"]["test"]:
        name = "test-" + m["target"]["name"]
    elif kind == "example":
        name = "example-" + m["target"]["name"]
    else:
        continue
    shutil.copy(m["executable"], f"{out}/{name}")
    print(name)
' "$out/rust" || { tail -30 "$build/bindbin-cargo.log"; exit 1; }
)

strip --strip-debug "$out"/lib/* "$out"/go/* "$out"/rust/*
echo "== $(du -sh "$out" | cut -f1) in $out:"
(cd "$out" && find . -type f | sort)
