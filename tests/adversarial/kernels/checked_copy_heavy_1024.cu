// A correct vector add that keeps 16 pointers live, launched in blocks of
// 1024 threads. Its full build uses 56 registers a thread, within the 64 a
// 1024-thread block may have; a checked copy (compiler/fault_containment.h)
// checks every access against the buffers and keeps more live: 72 even at
// full optimisation (CUDA 13.0), which no such block could launch. kbench
// must then build the function alone, so that the launch is the kernel's own
// (compiler/nvrtc_backend.h, NvrtcBackend::compile).
// The loop never runs (n >= 1), but the compiler cannot know it.
__global__ void vector_add(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float* p0 = a + (i + 0) % n;
    const float* p1 = a + (i + 977) % n;
    const float* p2 = a + (i + 1954) % n;
    const float* p3 = a + (i + 2931) % n;
    const float* p4 = a + (i + 3908) % n;
    const float* p5 = a + (i + 4885) % n;
    const float* p6 = a + (i + 5862) % n;
    const float* p7 = a + (i + 6839) % n;
    const float* p8 = a + (i + 7816) % n;
    const float* p9 = a + (i + 8793) % n;
    const float* p10 = a + (i + 9770) % n;
    const float* p11 = a + (i + 10747) % n;
    const float* p12 = a + (i + 11724) % n;
    const float* p13 = a + (i + 12701) % n;
    const float* p14 = a + (i + 13678) % n;
    const float* p15 = a + (i + 14655) % n;
    float s = 0.f;
    for (int r = 0; r < -n; ++r) {
        s += *p0;
        s += *p1;
        s += *p2;
        s += *p3;
        s += *p4;
        s += *p5;
        s += *p6;
        s += *p7;
        s += *p8;
        s += *p9;
        s += *p10;
        s += *p11;
        s += *p12;
        s += *p13;
        s += *p14;
        s += *p15;
        p0 += r & 1;
        p1 += r & 1;
        p2 += r & 1;
        p3 += r & 1;
        p4 += r & 1;
        p5 += r & 1;
        p6 += r & 1;
        p7 += r & 1;
        p8 += r & 1;
        p9 += r & 1;
        p10 += r & 1;
        p11 += r & 1;
        p12 += r & 1;
        p13 += r & 1;
        p14 += r & 1;
        p15 += r & 1;
    }
    c[i] = a[i] + b[i] + 0.0f * s;  // s is 0: adds a zero
}
