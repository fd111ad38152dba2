#!/usr/bin/env bash
# Downloads the wheels KernelBench's harness needs on the GPU machine and
# lacks there into .whl/ (git-ignored), for the device tool to carry:
# eval.py's KernelExecResult is a pydantic (v2) model, and the machine has no
# pydantic and no network. bench/run_device.sh installs .whl/*.whl into
# /tmp/site. Run here, in the repository root, on a machine that reaches PyPI.
# typing-extensions comes too: pydantic 2.12 needs >= 4.14.1, and the
# machine's (torch's) may be older; a newer one serves torch as well.
set -eu
cd "$(dirname "$0")/../.."
mkdir -p .whl
python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
  -d .whl pydantic==2.12.5 pydantic-core==2.41.5 annotated-types==0.7.0 typing-inspection==0.4.2 \
  typing-extensions==4.15.0
ls -la .whl
