#!/usr/bin/env bash
# Puts Ray and the packages it needs into .whl-ray/ (git-ignored), to be
# copied to the GPU machine, which has no Ray and no network. Ray's wheel
# (79 MB for 2.60.0) is over the 64 MiB that copy may hold, so
# bench/ray/strip_wheel.py repacks it without what `kbench run --ray` never
# loads: the Java jars, the dashboard's web client and the libraries
# (RLlib, Tune, Train, Serve, Data, LLM). bench/run_device.sh installs
# .whl-ray/*.whl beside .whl/*.whl. Run here, in the repository root, on a
# machine that reaches PyPI. typing-extensions is left out: .whl/ has it.
set -eu
cd "$(dirname "$0")/../.."
RAY=${RAY_VERSION:-2.60.0}
rm -rf .whl-ray && mkdir -p .whl-ray/tmp
dl() {
  python3 -m pip download -q --only-binary=:all: --python-version 3.12 --implementation cp \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 "$@"
}
dl --no-deps -d .whl-ray/tmp "ray==$RAY"
dl -d .whl-ray click filelock jsonschema "msgpack>=1,<2" "packaging>=24.2" "protobuf>=3.20.3" pyyaml requests
rm -f .whl-ray/typing_extensions-*.whl
python3 bench/ray/strip_wheel.py .whl-ray/tmp/ray-*.whl .whl-ray/
rm -rf .whl-ray/tmp
du -sh .whl-ray
ls -la .whl-ray
