// The first include of main.cpp in a split load_inline build, in place of
// torch/extension.h when the answer's C++ needs no more than ATen and the
// bindings (kbench_load_inline.py decides): torch/types.h and what
// `torch::wrap_pybind_function` and pybind11's tensor casters need. The
// build keeps a GCC precompiled header of it; torch/extension.h's other
// parts (torch::nn, optim, jit, autograd's Python side) are not parsed.
#ifndef KBENCH_LI_MAIN_H
#define KBENCH_LI_MAIN_H
#include <torch/types.h>
#include <torch/csrc/Exceptions.h>
#include <torch/csrc/utils/pybind.h>
#endif
