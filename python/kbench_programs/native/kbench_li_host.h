// The first include of the host unit of a split load_inline build
// (kbench_cuda_split.py): what torch's cuda.cu includes (torch/types.h,
// cuda.h, cuda_runtime.h) and the CUDA parts of ATen and c10 that answers'
// host code includes most (the current stream, device guards). The build
// keeps a GCC precompiled header of it, so none of these is parsed per answer.
#ifndef KBENCH_LI_HOST_H
#define KBENCH_LI_HOST_H
#include <torch/types.h>
#include <cuda.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#endif
