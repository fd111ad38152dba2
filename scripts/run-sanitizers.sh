#!/usr/bin/env bash
# Builds kbench with sanitizers into its own folder and runs the CPU tests
# there (docs/sanitizers.md). Without arguments: ASan + UBSan over every CPU
# test (CTest label unit). With `thread`: TSan over the tests that run
# threads (kbench_thread_tests: the thread test, the batch queue, the compile
# pool, the phase lock). CI runs both after the plain build's tests.
#
#   scripts/run-sanitizers.sh            # build-asan, ASan + UBSan
#   scripts/run-sanitizers.sh thread     # build-tsan, TSan
set -euo pipefail
cd "$(dirname "$0")/.."
kind=${1:-address}
cuda_home=${CUDA_HOME:-${CUDA_PATH:-/usr/local/cuda}}
export PATH="$cuda_home/bin:$PATH"
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
# Bindings, benchmarks and examples stay out: Python, Go and Rust would load an
# instrumented library into uninstrumented runtimes. -O1 -g1: half the compile
# time of -O2 -g on two cores, with line numbers in every report.
flags="-O1 -g1 -DNDEBUG"
common=(-G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=$flags"
        "-DCMAKE_C_FLAGS_RELWITHDEBINFO=$flags" -DKBENCH_BUILD_BINDINGS=OFF -DKBENCH_BUILD_BENCH=OFF
        -DKBENCH_BUILD_EXAMPLES=OFF -DKBENCH_BUILD_DEVICE_TESTS=OFF -DKBENCH_BUILTIN_ARCHS=90 "${launcher[@]}")
case "$kind" in
  address)
    BUILD=${BUILD_ASAN:-build-asan}
    cmake -S . -B "$BUILD" "${common[@]}" -DKBENCH_SANITIZE=address,undefined >/dev/null
    cmake --build "$BUILD" -j "$(nproc)"
    # Leaks are checked by the RSS test (LeakCycles); LeakSanitizer would
    # report the CUDA libraries' own process-lifetime allocations. Signals
    # stay the process's own: tests make references and candidates crash on
    # purpose (in the emulator's fibers ASan calls a SIGSEGV a stack overflow
    # and aborts), and check the signal kbench reports.
    export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1:handle_segv=0:handle_sigbus=0:handle_sigfpe=0
    export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
    # Left out: the tests of what an install or a wheel looks like (they
    # build and load an uninstrumented consumer) and of the exported symbols
    # (the sanitizers' runtimes add their own). scripts/run-tests.sh runs
    # these on the plain build.
    (cd "$BUILD" && ctest --output-on-failure -j "$(nproc)" --timeout 900 -L unit -E "${SANITIZE_EXCLUDE:-^(pip_install_wheel|install_consumers|abi_compatible_with_baseline|exported_symbols_are_kb_only)$}")
    ;;
  thread)
    BUILD=${BUILD_TSAN:-build-tsan}
    cmake -S . -B "$BUILD" "${common[@]}" -DKBENCH_SANITIZE=thread >/dev/null
    cmake --build "$BUILD" -j "$(nproc)" --target kbench_thread_tests kbench_worker
    export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$PWD/tests/sanitizers/tsan.supp"
    (cd "$BUILD" && ctest --output-on-failure -j "$(nproc)" --timeout 900 -L thread)
    ;;
  *) echo "usage: run-sanitizers.sh [address|thread]" >&2; exit 2 ;;
esac
