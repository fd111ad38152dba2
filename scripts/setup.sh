#!/usr/bin/env bash
# Installs what building kbench needs and is missing (Debian packages), and
# checks for the CUDA toolkit (NVRTC, headers, nvcc), which does not come
# from Debian: it must be installed already (/usr/local/cuda or $CUDA_HOME).
set -euo pipefail

need=()
command -v cmake >/dev/null || need+=(cmake)
command -v ninja >/dev/null || need+=(ninja-build)
command -v g++ >/dev/null || need+=(g++)
command -v nm >/dev/null || need+=(binutils)
# The install tests build a consumer through pkg-config; the ABI test runs
# abidw/abidiff against abi/libkbench.abi (docs/compatibility.md).
command -v pkg-config >/dev/null || need+=(pkg-config)
command -v abidiff >/dev/null || need+=(abigail-tools)
[ -f /usr/include/nlohmann/json.hpp ] || need+=(nlohmann-json3-dev)
[ -d /usr/src/googletest ] || [ -f /usr/include/gtest/gtest.h ] || need+=(googletest libgtest-dev)
# Bindings (bindings/README.md): SWIG for Python and Go, Python's headers, Go.
# Rust's cargo comes from rustup, not Debian; without one the Rust tests skip.
command -v swig >/dev/null || need+=(swig)
# Seccomp filters for the workers that run untrusted Python (docs/isolation.md, "Confinement").
[ -f /usr/include/seccomp.h ] || need+=(libseccomp-dev)
[ -f "$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["include"])' 2>/dev/null)/Python.h" ] || need+=(python3-dev)
# The pip test (tests/pip) makes a fresh virtual environment.
python3 -c 'import ensurepip, venv' 2>/dev/null || need+=(python3-venv)
command -v go >/dev/null || need+=(golang-go)
# The fuzz targets (docs/fuzzing.md): clang with libFuzzer's runtime, which
# Debian ships in libclang-rt-dev.
command -v clang++ >/dev/null || need+=(clang)
ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1 || need+=(libclang-rt-dev)
if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing ${need[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi

# Triton (docs/triton.md): Triton candidates compile in a Python process with
# `triton` installed; no GPU is needed. Pinned to the device machines' version
# (wheels for CPython 3.10-3.13 on x86-64 Linux, about 190 MB). Without it the
# Triton tests skip (exit 77) and say so. KBENCH_PYTHON names another interpreter.
triton_version=3.6.0
python=${KBENCH_PYTHON:-python3}
if ! "$python" -c "import triton" 2>/dev/null; then
  echo "setup: installing triton==$triton_version for $python"
  "$python" -m pip install --quiet "triton==$triton_version" || \
    echo "setup: could not install triton; the Triton tests will be skipped" >&2
fi
"$python" -c "import triton; print('setup: Triton', triton.__version__, 'for', '$python')" 2>/dev/null || true

# KBENCH_TORCH=1: torch too, for program candidates and `kbench import`'s
# checks (docs/programs.md, "Torch for program candidates"); about 800 MB
# (the CPU build is enough without a GPU). Off by default: CI has no torch.
if [ "${KBENCH_TORCH:-0}" = 1 ] && ! "$python" -c "import torch" 2>/dev/null; then
  echo "setup: installing torch for $python"
  "$python" -m pip install --quiet torch || { echo "setup: could not install torch" >&2; exit 1; }
fi

# kbench.ray's test (a local Ray cluster, compile-only; ray is about 70 MB)
# and kbench sweep's plots (matplotlib): from PyPI, for the same interpreter.
# Without them those tests skip (python_ray) or fail (cli_PlotScript) and say so.
for pkg in ray matplotlib; do
  if ! "$python" -c "import $pkg" 2>/dev/null; then
    echo "setup: installing $pkg for $python"
    "$python" -m pip install --quiet "$pkg" || echo "setup: could not install $pkg" >&2
  fi
done

cuda_home=${CUDA_HOME:-${CUDA_PATH:-/usr/local/cuda}}
if [ ! -x "$cuda_home/bin/nvcc" ] || [ ! -f "$cuda_home/include/nvrtc.h" ]; then
  echo "setup: no CUDA toolkit at $cuda_home (need bin/nvcc, include/nvrtc.h, lib64/libnvrtc.so)." >&2
  echo "       Install the CUDA toolkit (12.4 or newer) and set CUDA_HOME; no GPU is needed to build." >&2
  exit 1
fi
echo "setup: CUDA toolkit at $cuda_home ($("$cuda_home/bin/nvcc" --version | tail -1))"
