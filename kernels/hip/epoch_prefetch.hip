// epoch_prefetch.hip -- the article's section 4.2: loading training batches with managed memory.
//
// Three managed arrays of 1M floats; the CPU fills a and b; then three epochs of: (the CPU edits
// a, as preprocessing for the next batch would) -> prefetch a, b and out to the GPU ("inhale")
// -> add_kernel -> prefetch out back to the CPU ("exhale") -> wait for the stream -> the CPU
// sums out.  The program is correct without any prefetch; the prefetches move the pages in bulk
// ahead of use instead of one fault at a time.  (The article prefetches out once, before the
// loop; here out also goes back to the CPU each epoch, so it is prefetched in each epoch.)
//
// Porting note: this is the classic HIP call, hipMemPrefetchAsync(ptr, bytes, device, stream),
// with hipCpuDeviceId (-1) for the CPU; it exists from HIP 5 through HIP 7.  CUDA 13 removed the
// int-device form: cudaMemPrefetchAsync(ptr, bytes, cudaMemLocation, flags, stream).  The direct
// HIP port of CUDA 13 code is the newer hipMemPrefetchAsync_v2(ptr, bytes, hipMemLocation,
// flags, stream) (ROCm/clr hipamd/src/hip_hmm.cpp), in HIP 7.1 and later only.
//
// Prints one CHECK line per epoch and a final "RESULT epoch_prefetch ok" (exit 0) or "... FAIL".
#include <hip/hip_runtime.h>

#include <cstdio>
#include <cstdlib>

#define HIP_CHECK(expr)                                                                   \
    do {                                                                                  \
        hipError_t hip_err_ = (expr);                                                     \
        if (hip_err_ != hipSuccess) {                                                     \
            std::fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__, #expr, \
                         hipGetErrorString(hip_err_), hipGetErrorName(hip_err_));         \
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
    HIP_CHECK(hipGetDevice(&dev));               // the compute device (the article assumes 0)
    hipStream_t stream;
    HIP_CHECK(hipStreamCreate(&stream));
    hipEvent_t start, stop;
    HIP_CHECK(hipEventCreate(&start));
    HIP_CHECK(hipEventCreate(&stop));

    float *a = nullptr, *b = nullptr, *out = nullptr;
    HIP_CHECK(hipMallocManaged(&a, bytes));
    HIP_CHECK(hipMallocManaged(&b, bytes));
    HIP_CHECK(hipMallocManaged(&out, bytes));

    // the CPU generates the data
    for (int i = 0; i < n; ++i) {
        a[i] = static_cast<float>(i % 100);
        b[i] = static_cast<float>(i % 50);
    }

    const int threads = 256;
    const int blocks = (n + threads - 1) / threads;
    bool ok = true;
    for (int epoch = 0; epoch < 3; ++epoch) {
        if (epoch > 0) {
            // the CPU changed the batch since the last epoch: this is when the prefetch matters
            for (int i = 0; i < n; ++i) a[i] += 1.0f;
        }
        HIP_CHECK(hipEventRecord(start, stream));
        HIP_CHECK(hipMemPrefetchAsync(a, bytes, dev, stream));      // inhale the batch
        HIP_CHECK(hipMemPrefetchAsync(b, bytes, dev, stream));
        // and the output: the GPU writes it first (it went back to the CPU last epoch)
        HIP_CHECK(hipMemPrefetchAsync(out, bytes, dev, stream));
        add_kernel<<<blocks, threads, 0, stream>>>(a, b, out, n);
        HIP_CHECK(hipGetLastError());
        HIP_CHECK(hipMemPrefetchAsync(out, bytes, hipCpuDeviceId, stream));  // exhale the result
        HIP_CHECK(hipEventRecord(stop, stream));
        HIP_CHECK(hipStreamSynchronize(stream));  // only this stream: not hipDeviceSynchronize

        float ms = 0.0f;
        HIP_CHECK(hipEventElapsedTime(&ms, start, stop));
        // the CPU reads the result (a double sum: a float one would round past 2^24)
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

    HIP_CHECK(hipFree(a));
    HIP_CHECK(hipFree(b));
    HIP_CHECK(hipFree(out));
    HIP_CHECK(hipEventDestroy(start));
    HIP_CHECK(hipEventDestroy(stop));
    HIP_CHECK(hipStreamDestroy(stream));
    std::printf("RESULT epoch_prefetch %s\n", ok ? "ok" : "FAIL");
    return ok ? 0 : 1;
}
