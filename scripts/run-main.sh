#!/usr/bin/env bash
# kbench's main job on its built-in tasks: set up, build, then score every
# example candidate of every task in tasks/ and check each verdict against
# the one the candidate declares. Without a GPU it says so and does what it
# can: validates every task and compiles every reference and candidate.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh >/dev/null
BUILD=${BUILD:-build}
"$BUILD/kbench" info
echo
"$BUILD/kbench" validate --oracle tasks/
echo
exec "$BUILD/kbench" suite tasks "$@"
