// advise_prefetch.cu -- the CUDA 13 original of kernels/hip/advise_prefetch.hip (article section
// 4.4: advice first, then prefetch).
//
// The same program as NVIDIA developers write it today.  The port to HIP is a rename (cudaX ->
// hipX, umkit.names) except where CUDA 13 takes a cudaMemLocation: cudaMemAdvise(ptr, bytes,
// advice, location) and cudaMemPrefetchAsync(ptr, bytes, location, flags, stream), where HIP's
// classic calls take an int device (HIP's newer *_v2 calls take a hipMemLocation, like this file).
//
// Prints the same CHECK/RESULT lines as the HIP port.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(expr)                                                                  \
    do {                                                                                  \
        cudaError_t cuda_err_ = (expr);                                                   \
        if (cuda_err_ != cudaSuccess) {                                                   \
            std::fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__, #expr, \
                         cudaGetErrorString(cuda_err_), cudaGetErrorName(cuda_err_));     \
            std::exit(EXIT_FAILURE);                                                      \
        }                                                                                 \
    } while (0)

// y = 2 * w + 1: a layer that reads the weights
__global__ void apply_weights(const float* w, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.0f * w[i] + 1.0f;
}

static bool check_int(const char* what, int got, int want)
{
    std::printf("CHECK %s=%d expected=%d %s\n", what, got, want, got == want ? "ok" : "FAIL");
    return got == want;
}

int main()
{
    const int n = 1 << 20;                       // 4 MiB of weights
    const size_t bytes = n * sizeof(float);
    const int threads = 256, blocks = (n + threads - 1) / threads;

    int dev = 0, ndev = 0, concurrent = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaGetDeviceCount(&ndev));
    CUDA_CHECK(cudaDeviceGetAttribute(&concurrent, cudaDevAttrConcurrentManagedAccess, dev));
    if (!concurrent) {
        // managed-memory hints need a GPU that can fault on managed pages
        std::printf("RESULT advise_prefetch FAIL (device %d: concurrent managed access is 0, "
                    "so cudaMemAdvise/cudaMemPrefetchAsync are not supported)\n", dev);
        return 1;
    }
    const int reader = ndev > 1 ? (dev + 1) % ndev : dev;
    cudaMemLocation gpu = {}, reader_loc = {};  // CUDA 12.2+: locations instead of ints
    gpu.type = cudaMemLocationTypeDevice;
    gpu.id = dev;
    reader_loc.type = cudaMemLocationTypeDevice;
    reader_loc.id = reader;

    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));
    float *w = nullptr, *y = nullptr;
    CUDA_CHECK(cudaMallocManaged(&w, bytes));
    CUDA_CHECK(cudaMallocManaged(&y, bytes));
    for (int i = 0; i < n; ++i) w[i] = static_cast<float>(i % 3);

    // 1. intent: the weights belong on the GPU, and `reader` will access them
    CUDA_CHECK(cudaMemAdvise(w, bytes, cudaMemAdviseSetPreferredLocation, gpu));
    CUDA_CHECK(cudaMemAdvise(w, bytes, cudaMemAdviseSetAccessedBy, reader_loc));
    // 2. action: move them there now, and place the output beside them
    CUDA_CHECK(cudaMemPrefetchAsync(w, bytes, gpu, 0, stream));
    CUDA_CHECK(cudaMemPrefetchAsync(y, bytes, gpu, 0, stream));
    apply_weights<<<blocks, threads, 0, stream>>>(w, y, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaStreamSynchronize(stream));

    // 3. what the driver recorded for the range
    int preferred = -3, last_prefetch = -3;
    CUDA_CHECK(cudaMemRangeGetAttribute(&preferred, sizeof(int),
                                        cudaMemRangeAttributePreferredLocation, w, bytes));
    CUDA_CHECK(cudaMemRangeGetAttribute(&last_prefetch, sizeof(int),
                                        cudaMemRangeAttributeLastPrefetchLocation, w, bytes));
    std::vector<int> accessed(ndev + 1, -3);     // one slot per GPU and one for the CPU
    CUDA_CHECK(cudaMemRangeGetAttribute(accessed.data(), accessed.size() * sizeof(int),
                                        cudaMemRangeAttributeAccessedBy, w, bytes));
    int reader_listed = 0;
    for (int d : accessed) reader_listed |= (d == reader);
    bool ok = check_int("preferred_location", preferred, dev);
    ok = check_int("last_prefetch_location", last_prefetch, dev) && ok;
    ok = check_int("accessed_by_lists_reader", reader_listed, 1) && ok;

    // 4. the CPU reads the output (an occasional CPU access)
    double sum = 0.0;
    for (int i = 0; i < n; ++i) sum += y[i];
    double expected = 0.0;
    for (int i = 0; i < n; ++i) expected += 2.0 * (i % 3) + 1.0;
    std::printf("CHECK sum=%.1f expected=%.1f %s\n", sum, expected, sum == expected ? "ok" : "FAIL");
    ok = ok && sum == expected;

    // the advice stays until unset or freed
    CUDA_CHECK(cudaMemAdvise(w, bytes, cudaMemAdviseUnsetAccessedBy, reader_loc));
    CUDA_CHECK(cudaMemAdvise(w, bytes, cudaMemAdviseUnsetPreferredLocation, gpu));
    CUDA_CHECK(cudaFree(w));
    CUDA_CHECK(cudaFree(y));
    CUDA_CHECK(cudaStreamDestroy(stream));
    std::printf("RESULT advise_prefetch %s\n", ok ? "ok" : "FAIL");
    return ok ? 0 : 1;
}
