// Adversarial: never finishes (a wait on a flag nobody sets; the volatile
// read keeps the compiler from deleting the loop). A kernel that spins
// cannot be stopped inside its process: kbench kills the worker process at
// the request's deadline.
// Task: vector_add_f32. Expected verdict: timeout (case 'one').
__device__ volatile int never_set = 0;

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
    while (never_set == 0) {
    }
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
