// epoch_prefetch.cu -- the CUDA 13 original of kernels/hip/epoch_prefetch.hip (article section 4.2).
//
// The same program as NVIDIA developers write it today, for comparing with the HIP port line by
// line.  The port is a rename (cudaX -> hipX, umkit.names) except in one place: CUDA 13's
// cudaMemPrefetchAsync takes a cudaMemLocation (plus a flags argument), where HIP's classic
// hipMemPrefetchAsync takes an int device, hipCpuDeviceId for the CPU.  (HIP's newer
// hipMemPrefetchAsync_v2 takes a hipMemLocation, like this file.)
//
// Prints the same CHECK/RESULT lines as the HIP port.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(expr)                                                                  \
    do {                                                                                  \
        cudaError_t cuda_err_ = (expr);                                                   \
        if (cuda_err_ != cudaSuccess) {                                                   \
            std::fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__, #expr, \
                         cudaGetErrorString(cuda_err_), cudaGetErrorName(cuda_err_));     \
            std::exit(EXIT_FAILURE);                                                      \
        }                                                                                 \
    } while (0)

__global__ void add_kernel(const float* a, const float* b, float* out, int n)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < n) out[idx] = a[idx] + b[idx];
}

int main()
{
    const int n = 1 << 20;                       // 1M elements, 4 MiB per array
    const size_t bytes = n * sizeof(float);

    int dev = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    cudaMemLocation gpu = {};                    // CUDA 12.2+: where pages should go
    gpu.type = cudaMemLocationTypeDevice;
    gpu.id = dev;
    cudaMemLocation host = {};
    host.type = cudaMemLocationTypeHost;         // (id is ignored for the host)

    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));

    float *a = nullptr, *b = nullptr, *out = nullptr;
    CUDA_CHECK(cudaMallocManaged(&a, bytes));
    CUDA_CHECK(cudaMallocManaged(&b, bytes));
    CUDA_CHECK(cudaMallocManaged(&out, bytes));

    for (int i = 0; i < n; ++i) {
        a[i] = static_cast<float>(i % 100);
        b[i] = static_cast<float>(i % 50);
    }

    const int threads = 256;
    const int blocks = (n + threads - 1) / threads;
    bool ok = true;
    for (int epoch = 0; epoch < 3; ++epoch) {
        if (epoch > 0) {
            for (int i = 0; i < n; ++i) a[i] += 1.0f;
        }
        CUDA_CHECK(cudaEventRecord(start, stream));
        CUDA_CHECK(cudaMemPrefetchAsync(a, bytes, gpu, 0, stream));     // inhale the batch
        CUDA_CHECK(cudaMemPrefetchAsync(b, bytes, gpu, 0, stream));
        CUDA_CHECK(cudaMemPrefetchAsync(out, bytes, gpu, 0, stream));
        add_kernel<<<blocks, threads, 0, stream>>>(a, b, out, n);
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaMemPrefetchAsync(out, bytes, host, 0, stream));  // exhale the result
        CUDA_CHECK(cudaEventRecord(stop, stream));
        CUDA_CHECK(cudaStreamSynchronize(stream));

        float ms = 0.0f;
        CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
        double check = 0.0;
        for (int i = 0; i < n; ++i) check += out[i];
        double expected = 0.0;
        for (int i = 0; i < n; ++i) expected += (i % 100) + (i % 50) + epoch;
        const bool this_ok = (check == expected);
        ok = ok && this_ok;
        std::printf("CHECK epoch%d_sum=%.1f expected=%.1f %s\n", epoch, check, expected,
                    this_ok ? "ok" : "FAIL");
        std::printf("INFO epoch%d_ms=%.3f (prefetch in, kernel, prefetch out)\n", epoch, ms);
    }

    CUDA_CHECK(cudaFree(a));
    CUDA_CHECK(cudaFree(b));
    CUDA_CHECK(cudaFree(out));
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    CUDA_CHECK(cudaStreamDestroy(stream));
    std::printf("RESULT epoch_prefetch %s\n", ok ? "ok" : "FAIL");
    return ok ? 0 : 1;
}
