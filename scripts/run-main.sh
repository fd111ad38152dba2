#!/usr/bin/env bash
# kbench's main job on its built-in tasks: set up, build, then score every
# example candidate of every task in tasks/ and check each verdict against
# the one the candidate declares. Without a GPU it says so and does what it
# can: validates every task and compiles every reference and candidate.
#
# It builds only what the job needs (the CLI, its worker, the libraries they
# load: the CMake target kbench_main), and shows the build's progress; the
# tests and bindings are built by scripts/run-tests.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "run-main: building kbench (the CLI, its worker, the oracle library); the tests are built by scripts/run-tests.sh"
bash scripts/build.sh kbench_main
BUILD=${BUILD:-build}
echo
"$BUILD/kbench" info
echo
"$BUILD/kbench" validate --oracle tasks/
echo
exec "$BUILD/kbench" suite tasks "$@"
