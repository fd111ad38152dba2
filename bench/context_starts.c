// How long a fresh process takes to get a CUDA context, alone and beside
// others starting at the same moment: the fact behind a lane's standby only
// after a loss (worker_host/worker_backend.cpp, worker_settings) and lanes
// that start their workers one after another (engine/batch.cpp). Stand-alone
// (the driver API only), so it measures the driver and nothing of kbench:
//
//   nvcc -O2 -o context_starts bench/context_starts.c -lcuda
//   ./context_starts DEVICE        # one process; prints one line
//
// bench/run_device.sh starts 1, 4 and 8 of them per GPU at once, on one GPU
// and on two, and prints each one's cuInit, context and first allocation
// times. On a host of two H200s (`bench/run_device.sh`, bench/RESULTS.md): alone, 0.45 s
// of cuInit and 0.13 s of context; eight at once, on one GPU or four on each
// of two, all finished together after 1.27-1.48 s; sixteen after 2.6-3.1 s.
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static int check(CUresult r, const char* what) {
    if (r == CUDA_SUCCESS) return 0;
    const char* name = NULL;
    cuGetErrorName(r, &name);
    fprintf(stderr, "context_starts: %s failed: %s\n", what, name ? name : "unknown error");
    return 1;
}

int main(int argc, char** argv) {
    int ordinal = argc > 1 ? atoi(argv[1]) : 0;
    double t0 = now();
    if (check(cuInit(0), "cuInit")) return 1;
    double t1 = now();
    CUdevice dev;
    CUcontext ctx;
    if (check(cuDeviceGet(&dev, ordinal), "cuDeviceGet") || check(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain") ||
        check(cuCtxSetCurrent(ctx), "cuCtxSetCurrent"))
        return 1;
    double t2 = now();
    CUdeviceptr p;
    CUstream s;
    if (check(cuMemAlloc(&p, 1 << 20), "cuMemAlloc") || check(cuStreamCreate(&s, 0), "cuStreamCreate") ||
        check(cuStreamSynchronize(s), "cuStreamSynchronize"))
        return 1;
    double t3 = now();
    printf("{\"device\": %d, \"init_s\": %.3f, \"context_s\": %.3f, \"first_alloc_s\": %.3f, \"total_s\": %.3f}\n", ordinal,
           t1 - t0, t2 - t1, t3 - t2, t3 - t0);
    return 0;
}
