/* libkbench_gpu_compare: the C core's output comparator (Device::compare,
 * compare_math.h's rule, the same kernels kernel candidates are judged by)
 * for kbench's Python reference worker, through ctypes.
 *
 * A program candidate's outputs stay on the GPU in the candidate worker's
 * process; that worker exports each one as a CUDA IPC handle. The reference
 * worker, which holds the expected outputs, opens the handle, compares on the
 * GPU and closes it. Nothing crosses the host but the statistics, and the
 * expected outputs never enter the candidate's process (docs/programs.md).
 *
 * One caller thread (the worker's main thread). */
#ifndef KBENCH_GPU_COMPARE_H
#define KBENCH_GPU_COMPARE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kbg_stats {
    uint64_t mismatches;
    uint64_t unwritten;     /* elements still holding the dtype's poison pattern */
    double max_abs_err;
    double max_rel_err;
    double max_violation;   /* 1.0 = at the tolerance's edge */
    uint64_t worst_index;   /* flat index of the worst element */
    uint64_t worst_bits;    /* the candidate's element there, raw (low bytes) */
    uint64_t expected_bits; /* the reference's element there, raw (low bytes) */
} kbg_stats;

/* Compares `count` elements of kbench dtype `dtype` (src/task/dtype.h's
 * numbering) at `offset` bytes into the allocation the 64-byte CUDA IPC
 * `handle` names (another process's) against `expected` (a device pointer of
 * this process), with tolerance atol/rtol (NaN matches NaN when equal_nan).
 * The allocation must hold offset + count elements. 0 on success; otherwise
 * -1 and kbg_error() says why (nothing was compared). */
int kbg_compare_ipc(int device, const unsigned char* handle, uint64_t offset, uint64_t expected, uint64_t count,
                    int dtype, double atol, double rtol, int equal_nan, kbg_stats* out);

/* kbench's input checksum (the C core's kb_checksum kernel, one pass) of
 * `bytes` bytes at device pointer `ptr` (this process's, 8-byte aligned),
 * on the primary context's own stream after the device's pending work: the
 * Python workers' checksum of a tensor on the GPU, the same value in both
 * workers. 0 on success; otherwise -1 and kbg_error() says why. */
int kbg_checksum(int device, uint64_t ptr, uint64_t bytes, uint64_t* out);

/* The last failure's message ("" when none). */
const char* kbg_error(void);

#ifdef __cplusplus
}
#endif

#endif
