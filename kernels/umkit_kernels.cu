// umkit kernels: one source for CUDA (NVRTC) and HIP (hiprtc).
// Rules that keep it portable: no #include, only extern "C" __global__ entry points,
// built-ins only (threadIdx, blockIdx, blockDim, gridDim, atomicAdd).
// Parameter kinds are listed in umkit/backends/kernels.py (SPECS); keep the two in step.

// out[i] = a[i] + b[i]: the article's section 4.2 kernel, one element per thread.
extern "C" __global__ void add_kernel(float* out, const float* a, const float* b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = a[i] + b[i];
    }
}

// Sum one value per thread over the block, then add the block's sum to *sink (one atomic per
// block: a million same-address atomics would dominate the kernel).  256 threads per block.
__device__ void block_add(float* part, float acc, float* sink)
{
    part[threadIdx.x] = acc;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0 && part[0] != 0.0f) {
        atomicAdd(sink, part[0]);
    }
}

// Read a[0], a[stride], a[2*stride], ... below n (n counts floats), a grid-stride loop over the
// k-th touched element.  Each block sums what its threads read and adds that to sink[0] once
// (one atomic per block, not per thread: a million same-address atomics would dominate), so the
// compiler cannot drop the reads.  With stride = floats per page it touches every page once:
// the kernel that makes managed pages migrate (or fault) on demand.  Launch with 256 threads.
extern "C" __global__ void touch_kernel(const float* a, long long n, long long stride, float* sink)
{
    __shared__ float part[256];    // one slot per thread: launch with 256 threads
    if (stride < 1) stride = 1;
    long long count = (n + stride - 1) / stride;
    long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long step = (long long)gridDim.x * blockDim.x;
    float acc = 0.0f;
    for (; k < count; k += step) {
        acc += a[k * stride];
    }
    block_add(part, acc, sink);
}

// Read all of a[0..n) as 16-byte float4 loads, grid-stride (launch ~16 blocks per SM, 256
// threads): the streaming read a training step does.  Block-reduced into sink[0].
extern "C" __global__ void read_kernel(const float* a, long long n, float* sink)
{
    __shared__ float part[256];    // one slot per thread: launch with 256 threads
    const float4* a4 = (const float4*)a;
    long long n4 = n / 4;
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long step = (long long)gridDim.x * blockDim.x;
    float acc = 0.0f;
    for (; i < n4; i += step) {
        float4 v = a4[i];
        acc += (v.x + v.y) + (v.z + v.w);
    }
    if (blockIdx.x == 0 && threadIdx.x < (n - 4 * n4)) acc += a[4 * n4 + threadIdx.x];
    block_add(part, acc, sink);
}

// a[i] += 1: the smallest read-modify-write kernel.
extern "C" __global__ void increment_kernel(float* a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        a[i] += 1.0f;
    }
}

// a[i] = v for every i below n, grid-stride (works for any grid size and n past 2^31).
extern "C" __global__ void fill_kernel(float* a, float v, long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long step = (long long)gridDim.x * blockDim.x;
    for (; i < n; i += step) {
        a[i] = v;
    }
}
