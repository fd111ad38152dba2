// cross_entropy_f32 / int32_targets.cu
// Reads the int64 targets as int32: row r gets the low or high half of
// target[r / 2] instead of target[r], so most rows take the wrong logit
// (the high halves are 0).
// Expected verdict: wrong_answer

__global__ void cross_entropy(const float* logits, const long long* target, float* loss, int rows, int cols) {
    if (threadIdx.x != 0) return;
    const float* xr = logits + (size_t)blockIdx.x * cols;
    const int* t32 = reinterpret_cast<const int*>(target);
    float m = -INFINITY;
    for (int c = 0; c < cols; ++c) m = fmaxf(m, xr[c]);
    double s = 0.0;
    for (int c = 0; c < cols; ++c) s += expf(xr[c] - m);
    loss[blockIdx.x] = m + (float)log(s) - xr[t32[blockIdx.x]];
}
