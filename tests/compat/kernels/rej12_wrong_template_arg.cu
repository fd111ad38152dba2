// kbench-compat: kernels=vec_scale<float, 4>
// kbench-compat: expect=reject
// Explicit instantiation with a parameter list that does not match the template.
template <typename T, int V>
__global__ void vec_scale(T* x, T s, int n) {
    int i = (blockIdx.x * blockDim.x + threadIdx.x) * V;
    for (int k = 0; k < V; ++k)
        if (i + k < n) x[i + k] *= s;
}

template __global__ void vec_scale<float, 4>(float*, double, int);
