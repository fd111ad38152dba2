// A correct vector add that keeps 44 values live in registers, launched in
// blocks of 1024 threads: its full build uses 64 registers a thread, the
// most a 1024-thread block may have. NVRTC's fast compile (-Ofast-compile=mid,
// for builds that are only compared) gives its checked copy 78 and its plain
// build 96 (CUDA 13.0), which no 1024-thread block can launch; kbench must
// notice and build it in full (the checked copy: 63), so that a
// correctness-only score passes it as a timed one does
// (compiler/nvrtc_backend.h, "Fast builds that fit their launches").
// The loop never runs (n >= 1), but the compiler cannot know it; the store
// in it is what keeps the checked copy's fast build over 64.
__global__ void vector_add(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v0 = a[(i + 0) % n];
    float v1 = a[(i + 977) % n];
    float v2 = a[(i + 1954) % n];
    float v3 = a[(i + 2931) % n];
    float v4 = a[(i + 3908) % n];
    float v5 = a[(i + 4885) % n];
    float v6 = a[(i + 5862) % n];
    float v7 = a[(i + 6839) % n];
    float v8 = a[(i + 7816) % n];
    float v9 = a[(i + 8793) % n];
    float v10 = a[(i + 9770) % n];
    float v11 = a[(i + 10747) % n];
    float v12 = a[(i + 11724) % n];
    float v13 = a[(i + 12701) % n];
    float v14 = a[(i + 13678) % n];
    float v15 = a[(i + 14655) % n];
    float v16 = a[(i + 15632) % n];
    float v17 = a[(i + 16609) % n];
    float v18 = a[(i + 17586) % n];
    float v19 = a[(i + 18563) % n];
    float v20 = a[(i + 19540) % n];
    float v21 = a[(i + 20517) % n];
    float v22 = a[(i + 21494) % n];
    float v23 = a[(i + 22471) % n];
    float v24 = a[(i + 23448) % n];
    float v25 = a[(i + 24425) % n];
    float v26 = a[(i + 25402) % n];
    float v27 = a[(i + 26379) % n];
    float v28 = a[(i + 27356) % n];
    float v29 = a[(i + 28333) % n];
    float v30 = a[(i + 29310) % n];
    float v31 = a[(i + 30287) % n];
    float v32 = a[(i + 31264) % n];
    float v33 = a[(i + 32241) % n];
    float v34 = a[(i + 33218) % n];
    float v35 = a[(i + 34195) % n];
    float v36 = a[(i + 35172) % n];
    float v37 = a[(i + 36149) % n];
    float v38 = a[(i + 37126) % n];
    float v39 = a[(i + 38103) % n];
    float v40 = a[(i + 39080) % n];
    float v41 = a[(i + 40057) % n];
    float v42 = a[(i + 41034) % n];
    float v43 = a[(i + 42011) % n];
    for (int r = 0; r < -n; ++r) {
        float f = v0;
        v0 = v0 * 0.5f + v1;
        v1 = v1 * 0.5f + v2;
        v2 = v2 * 0.5f + v3;
        v3 = v3 * 0.5f + v4;
        v4 = v4 * 0.5f + v5;
        v5 = v5 * 0.5f + v6;
        v6 = v6 * 0.5f + v7;
        v7 = v7 * 0.5f + v8;
        v8 = v8 * 0.5f + v9;
        v9 = v9 * 0.5f + v10;
        v10 = v10 * 0.5f + v11;
        v11 = v11 * 0.5f + v12;
        v12 = v12 * 0.5f + v13;
        v13 = v13 * 0.5f + v14;
        v14 = v14 * 0.5f + v15;
        v15 = v15 * 0.5f + v16;
        v16 = v16 * 0.5f + v17;
        v17 = v17 * 0.5f + v18;
        v18 = v18 * 0.5f + v19;
        v19 = v19 * 0.5f + v20;
        v20 = v20 * 0.5f + v21;
        v21 = v21 * 0.5f + v22;
        v22 = v22 * 0.5f + v23;
        v23 = v23 * 0.5f + v24;
        v24 = v24 * 0.5f + v25;
        v25 = v25 * 0.5f + v26;
        v26 = v26 * 0.5f + v27;
        v27 = v27 * 0.5f + v28;
        v28 = v28 * 0.5f + v29;
        v29 = v29 * 0.5f + v30;
        v30 = v30 * 0.5f + v31;
        v31 = v31 * 0.5f + v32;
        v32 = v32 * 0.5f + v33;
        v33 = v33 * 0.5f + v34;
        v34 = v34 * 0.5f + v35;
        v35 = v35 * 0.5f + v36;
        v36 = v36 * 0.5f + v37;
        v37 = v37 * 0.5f + v38;
        v38 = v38 * 0.5f + v39;
        v39 = v39 * 0.5f + v40;
        v40 = v40 * 0.5f + v41;
        v41 = v41 * 0.5f + v42;
        v42 = v42 * 0.5f + v43;
        v43 = v43 * 0.5f + f;
        if (r & 1) c[r % n] = v0;
    }
    float s = v0 + v1 + v2 + v3 + v4 + v5 + v6 + v7 + v8 + v9 + v10 + v11 + v12 + v13 + v14 + v15 + v16 + v17 + v18 + v19 + v20 + v21 + v22 + v23 + v24 + v25 + v26 + v27 + v28 + v29 + v30 + v31 + v32 + v33 + v34 + v35 + v36 + v37 + v38 + v39 + v40 + v41 + v42 + v43;
    c[i] = a[i] + b[i] + 0.0f * s;  // s is finite: adds a zero
}
