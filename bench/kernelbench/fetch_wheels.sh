#!/usr/bin/env bash
# Downloads the wheels KernelBench's harness needs on the GPU machine and
# lacks there into .whl/ (git-ignored), to be copied there with the tree:
# eval.py's KernelExecResult is a pydantic (v2) model, and the machine has no
# pydantic and no network. bench/run_device.sh installs .whl/*.whl into
# /tmp/site. Run here, in the repository root, on a machine that reaches PyPI.
# typing-extensions comes too: pydantic 2.12 needs >= 4.14.1 and nothing on
# the machine demands that much (torch asks >= 4.10); 4.16.0 is the newest, so
# it does not put an older one in front of the machine's. The install fails
# on two versions of one package, so older copies of these are removed first.
set -eu
cd "$(dirname "$0")/../.."
mkdir -p .whl
rm -f .whl/pydantic-*.whl .whl/pydantic_core-*.whl .whl/annotated_types-*.whl .whl/typing_inspection-*.whl \
      .whl/typing_extensions-*.whl
python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
  -d .whl pydantic==2.12.5 pydantic-core==2.41.5 annotated-types==0.7.0 typing-inspection==0.4.2 \
  typing-extensions==4.16.0
ls -la .whl
