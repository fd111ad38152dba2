// Adversarial: declares __launch_bounds__(128) but the plan launches blocks of
// 256 threads (the task's default plan). The driver would refuse the launch;
// kbench checks the kernel's own limit before launching and says which.
// Task: vector_add_f32. Expected verdict: launch_error naming the limit of 128.
__global__ void __launch_bounds__(128) vector_add(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
