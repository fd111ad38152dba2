// Code in src/hostdev/ is compiled twice: by the host C++ compiler into the
// library, and by nvcc into kbench's own device kernels (builtin_kernels.cu),
// so that input generation and the comparison rule give the same bits on both
// sides. KB_HD marks a function for both.
#pragma once

#if defined(__CUDACC__)
#define KB_HD __host__ __device__ __forceinline__
#else
#define KB_HD inline
#endif
