/* The interface between kbench (src/emulate/) and a reference compiled for
 * the CPU emulator: a shared object built from the reference, the generated
 * trampolines and kbemu_cuda.cc. Plain C types only: both sides include
 * this header, and the module is loaded with dlopen. */
#ifndef KBEMU_ABI_H
#define KBEMU_ABI_H

#define KBEMU_ABI_VERSION 1

#ifdef __cplusplus
extern "C" {
#endif

/* One kernel launch: grid and block, dynamic shared memory, and the
 * parameters as cuLaunchKernel takes them (a pointer to each value), with
 * each value's size in bytes so the module can check them against the
 * kernel's parameter types. */
typedef struct kbemu_launch {
    unsigned grid[3];
    unsigned block[3];
    unsigned long long shared_bytes;
    void** params;
    const unsigned long long* sizes;
    unsigned long long count;
    char* error; /* receives a message when the launch is refused */
    unsigned long long error_capacity;
} kbemu_launch;

/* Where the emulation is, updated at every thread switch, so that a crash
 * can be reported with the block and thread that ran last. */
typedef struct kbemu_progress {
    unsigned block[3];
    unsigned thread[3];
    unsigned long long threads_started;
} kbemu_progress;

/* Exported by every module. */
typedef int (*kbemu_abi_version_fn)(void);
typedef void (*kbemu_attach_progress_fn)(kbemu_progress*);
/* kbemu_kernel_<i>, one per kernel of the launch plan in the order of
 * Program::kernel_names(): 0 when the grid ran, -1 when the launch was
 * refused (launch->error says why). */
typedef int (*kbemu_kernel_fn)(const kbemu_launch*);

#ifdef __cplusplus
}
#endif

#endif /* KBEMU_ABI_H */
