// messy.cu -- written for umkit's port-check tests: every unified-memory construct the check
// knows, formatted the ways real code is (macros around calls, calls over several lines,
// comments and strings that mention the calls, templates, using namespace, #if 0 blocks).
// It is not meant to run.  Comments that name a call must not be reported:
//   cudaMallocManaged(&ghost, 1); cudaMemPrefetchAsync(ghost, 1, 0, 0);
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

using namespace std;

#define CUDA_CHECK(expr)                                                      \
    do {                                                                      \
        cudaError_t err_ = (expr);                                            \
        if (err_ != cudaSuccess) {                                            \
            std::fprintf(stderr, "failed: %s cudaMallocManaged(\n", #expr);   \
            std::exit(1);                                                     \
        }                                                                     \
    } while (0)
#define HOST_FLAGS (cudaHostAllocPortable)
#define ADVISE_READ_MOSTLY(ptr, n) cudaMemAdvise((ptr), (n), cudaMemAdviseSetReadMostly, cudaCpuDeviceId)

__managed__ float g_total;                          /* a managed global */
__device__ __managed__ int g_counter[16];

/* a block comment with a call: cudaMemAdvise(p, n, cudaMemAdviseSetReadMostly, 0); */

template <typename T>
T* make_managed(size_t n)
{
    T* p = nullptr;
    CUDA_CHECK(cudaMallocManaged(&p, n * sizeof(T)));
    return p;
}

template <typename T>
__global__ void __launch_bounds__(256) accumulate(const T* __restrict__ in, float* sum, int* hits,
                                                  int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        atomicAdd(sum, static_cast<float>(in[i]));
        atomicAdd(&hits[i % 16], 1);
        atomicAdd(&g_total, 1.0f);
    }
}

__global__ void scale(float* x, int n) { int i = threadIdx.x; if (i < n) x[i] *= 2.0f; }

int main(int argc, char** argv)
{
    const size_t n = 1'048'576;
    const size_t bytes = n * sizeof(float);
    int dev = 0, concurrent = 0, pageable = 0;
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));
    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&concurrent,
                                      cudaDevAttrConcurrentManagedAccess, dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, dev));
    if (prop.directManagedMemAccessFromHost) std::printf("direct host access\n");

    float *data = nullptr, *out = nullptr;
    int* hits = nullptr;
    CUDA_CHECK(cudaMallocManaged((void**)&data,
                                 bytes,
                                 cudaMemAttachGlobal));
    CUDA_CHECK(cudaMallocManaged(reinterpret_cast<void**>(&hits), 16 * sizeof(int),
                                 cudaMemAttachHost));
    out = make_managed<float>(n);                     // managed through a template factory
    CUDA_CHECK(cudaStreamAttachMemAsync(stream, hits, 0, cudaMemAttachSingle));

    // CUDA 13: locations; designated and positional initializers, and fields set later
    cudaMemLocation gpu = {}, host = {};
    gpu.type = cudaMemLocationTypeDevice;
    gpu.id = dev;
    host.type = cudaMemLocationTypeHost;
    cudaMemLocation g2{cudaMemLocationTypeDevice, 0};

    CUDA_CHECK(cudaMemAdvise(data, bytes, cudaMemAdviseSetReadMostly, gpu));
    CUDA_CHECK(cudaMemAdvise(data, bytes,
                             cudaMemAdviseSetPreferredLocation,
                             g2));
    CUDA_CHECK(cudaMemAdvise(out, bytes, cudaMemAdviseSetAccessedBy, host));
    CUDA_CHECK(cudaMemAdvise(hits, 16 * sizeof(int), cudaMemAdviseSetAccessedBy, dev));   // int form
    CUDA_CHECK(cudaMemPrefetchAsync(data, bytes, gpu, 0, stream));
    CUDA_CHECK(cudaMemPrefetchAsync(out, bytes, dev, stream));                          // int form
    CUDA_CHECK(cudaMemPrefetchAsync(hits,
                                    16 * sizeof(int),
                                    cudaCpuDeviceId,
                                    stream));
    const char* msg = "cudaMemPrefetchAsync(data, bytes, host, 0, stream)";   // a string
    (void)msg;

    accumulate<float><<<(n + 255) / 256, 256, 0, stream>>>(data, out, hits, n);
    scale<<<1, 256>>>(data, 256);

    float* heap = (float*)malloc(bytes);
    vector<float> staging(n);
    scale<<<1, 256, 0, stream>>>(heap, 256);
    scale<<<1, 256, 0, stream>>>(staging.data(),
                                 256);
    CUDA_CHECK(cudaMemPrefetchAsync(heap, bytes, dev, stream));

    int preferred = -3, read_mostly = 0;
    CUDA_CHECK(cudaMemRangeGetAttribute(&preferred, sizeof(int),
                                        cudaMemRangeAttributePreferredLocation, data, bytes));
    CUDA_CHECK(cudaMemRangeGetAttribute(&read_mostly, sizeof(int),
                                        cudaMemRangeAttributeReadMostly, data, bytes));
    void* values[2] = {&preferred, &read_mostly};
    size_t sizes[2] = {sizeof(int), sizeof(int)};
    cudaMemRangeAttribute which[2] = {cudaMemRangeAttributePreferredLocation,
                                      cudaMemRangeAttributeAccessedBy};
    CUDA_CHECK(cudaMemRangeGetAttributes(values, sizes, which, 2,
                                         data, bytes));
    ADVISE_READ_MOSTLY(out, bytes);

    float* pinned = nullptr;
    float* mapped = nullptr;
    float* portable = nullptr;
    CUDA_CHECK(cudaMallocHost(&pinned, bytes));
    CUDA_CHECK(cudaHostAlloc(&mapped, bytes, cudaHostAllocMapped | cudaHostAllocWriteCombined));
    CUDA_CHECK(cudaHostAlloc(&portable, bytes, HOST_FLAGS));

    cudaIpcMemHandle_t handle;
    CUDA_CHECK(cudaIpcGetMemHandle(&handle, data));

#if 0
    CUDA_CHECK(cudaMallocManaged(&data, bytes));       // dead code
#endif
    CUDA_CHECK(::cudaDeviceSynchronize());
    std::printf("%f %d\n", out[0], hits[0]);
    free(heap);
    return 0;
}
